"""Stock levels of the warehouse."""


class Inventory:
    def __init__(self):
        self.stock = {}

    def restock(self, name, count):
        self.stock[name] = self.stock.get(name, 0) + count

    def reserve(self, name, count):
        if self.stock.get(name, 0) < count:
            raise KeyError(f"not enough {name} in stock")
        self.stock[name] -= count

    def available(self, name):
        return self.stock.get(name, 0)
