"""Sample package for the index tests."""
from .base import Base, helper
from . import util

__all__ = ["Base", "helper", "util"]
