from .a import *
