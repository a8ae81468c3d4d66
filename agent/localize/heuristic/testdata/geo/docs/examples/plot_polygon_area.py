"""Example: the area of a polygon, the area of a circle, and the total area."""
from geo import Circle, Polygon, ShapeManager


def plot_polygon_area_and_total_area():
    manager = ShapeManager()
    polygon = Polygon([(0, 0), (2, 0), (2, 2), (0, 2)])
    manager.add_shape(polygon)
    manager.add_shape(Circle(1))
    print("polygon area", polygon.area(), "total area", manager.total_area())
