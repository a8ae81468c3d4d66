import logging

from .base import Writer

log = logging.getLogger(__name__)


class SvgWriter(Writer):
    def write_shape(self, shape):
        points = getattr(shape, "points", None)
        if not points:
            log.warning("skipping shape without points in the drawing")
            return
        coords = " ".join(f"{x},{y}" for x, y in points)
        self.stream.write(f'<polygon points="{coords}" stroke-width="{self.stroke_width}"/>')
