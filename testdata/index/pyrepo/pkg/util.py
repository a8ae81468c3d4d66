import os.path


def join(*parts):
    return os.path.join(*parts)


def tidy(s):
    return s.strip()
