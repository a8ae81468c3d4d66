from .base import Writer
from .svg import SvgWriter
