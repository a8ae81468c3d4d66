def dumps_shape(shape, stroke_width=1):
    """Writes a shape, its area, its points and its stroke width as JSON."""
    return '{"area": %s, "points": %s, "stroke_width": %s}' % (shape.area(), shape.points, stroke_width)
