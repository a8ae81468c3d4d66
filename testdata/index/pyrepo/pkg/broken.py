def fine(a):
    return a + 1


def broken(:
    return fine(


class After:
    def ok(self):
        return fine(2)
