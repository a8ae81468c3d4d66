from .shapes import polygon_area


class ShapeManager:
    """Keeps a set of shapes and answers questions about all of them."""

    def __init__(self):
        self.shapes = []
        self.polygons = []

    def add_shape(self, shape):
        self.shapes.append(shape)

    def add_polygon(self, points):
        self.polygons.append(points)

    def total_area(self):
        total = sum(s.area() for s in self.shapes)
        for points in self.polygons:
            total += polygon_area(points)
        return total

    def clear(self):
        self.shapes = []
        self.polygons = []
