"""Models: inheritance across files, decorators, nesting."""
import pkg.util as u
from ..base import Base, decorate
from .. import util
from pkg import helper as h


class Model(Base):
    class Meta:
        ordering = ["name"]

        class Options:
            def describe(self):
                return u.tidy("x")

    @decorate
    @staticmethod
    def build(
        name,
        size: int = 3,
    ) -> "Model":
        return Model(name)

    def setup(self):
        super().setup()
        return h(2)

    def step(self):
        def inner(v):
            return util.join(v)

        return inner(self.name) + self.run()

    def save(self):
        self.missing()
        return Model.build("y")

    def attach(self):
        self.options = Model.Meta.Options()
        return self.options.describe()


def make():
    m = Model("a")
    m.save()
    return Model.Meta.Options().describe()


if __name__ == "__main__":
    make()
