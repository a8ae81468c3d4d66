from .a import *


def fb():
    return 1


def uses():
    return fa() + missing()
