import functools


def helper(x):
    return x * 2


def decorate(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


class Base(object):
    """A base class."""

    def __init__(self, name):
        self.name = name
        self.setup()

    def setup(self):
        return helper(1)

    def run(self):
        return self.step()

    def step(self):
        return 0


VERSION = (1, 0)
