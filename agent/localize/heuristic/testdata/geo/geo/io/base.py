class Writer:
    """Writes shapes to a stream; formats override write_shape."""

    def __init__(self, stream, stroke_width=1):
        self.stream = stream
        self.stroke_width = stroke_width

    def write(self, shapes):
        for shape in shapes:
            self.write_shape(shape)

    def write_shape(self, shape):
        raise NotImplementedError
