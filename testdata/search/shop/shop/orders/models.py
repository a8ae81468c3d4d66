from decimal import Decimal

from shop.settings import DEFAULT_CURRENCY


class OrderLine:
    """One product on an order."""

    def __init__(self, sku, quantity, unit_price):
        self.sku = sku
        self.quantity = quantity
        self.unit_price = Decimal(unit_price)

    def total(self):
        return self.unit_price * self.quantity


class Order:
    """A customer's order and its lines."""

    currency = DEFAULT_CURRENCY

    def __init__(self, customer):
        self.customer = customer
        self.lines = []
        self.paid = False

    def add_line(self, sku, quantity, unit_price):
        line = OrderLine(sku, quantity, unit_price)
        self.lines.append(line)
        return line

    def total(self):
        return sum(line.total() for line in self.lines)

    def filter_lines(self, predicate):
        return [line for line in self.lines if predicate(line)]

    @property
    def is_empty(self):
        return not self.lines


def merge_orders(first, second):
    merged = Order(first.customer)
    for line in first.lines + second.lines:
        merged.add_line(line.sku, line.quantity, line.unit_price)
    return merged
