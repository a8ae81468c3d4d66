"""Shapes, their areas and their drawings."""
from .shapes import Circle, Polygon, polygon_area
from .manager import ShapeManager

__all__ = ["Circle", "Polygon", "ShapeManager", "polygon_area"]


def version():
    return "1.0"
