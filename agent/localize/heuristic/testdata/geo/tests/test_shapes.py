from geo import Polygon, ShapeManager


def test_polygon_area():
    assert Polygon([(0, 0), (1, 0), (0, 1)]).area() == 0.5


def test_total_area_of_polygons():
    m = ShapeManager()
    m.add_polygon([(0, 0), (1, 0), (0, 1)])
    assert m.total_area() == 0.5
