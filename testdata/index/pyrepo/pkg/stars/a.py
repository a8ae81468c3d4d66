from .b import *


def fa():
    return fb()
