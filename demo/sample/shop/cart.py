"""The shopping cart."""

from dataclasses import dataclass

from .discounts import bulk_discount
from .money import format_money
from .pricing import line_total, unit_price


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    price: float


@dataclass
class Line:
    item: Item
    qty: int


class Cart:
    def __init__(self):
        self.lines = []

    def add(self, item, qty=1):
        """Add qty of item; the same item twice makes one line."""
        if qty < 1:
            raise ValueError(f"quantity must be at least 1, not {qty}")
        for line in self.lines:
            if line.item.sku == item.sku:
                line.qty += qty
                return
        self.lines.append(Line(item, qty))

    def count(self):
        return sum(line.qty for line in self.lines)

    def subtotal(self):
        return round(sum(line_total(line) for line in self.lines), 2)

    def total(self):
        """What the customer pays: line totals less the bulk discount."""
        subtotal = self.subtotal()
        return round(subtotal - bulk_discount(subtotal, self.count()), 2)

    def receipt(self):
        """The receipt's lines, one per item, then the total."""
        out = []
        for line in self.lines:
            price = unit_price(line.item, line.qty)
            out.append(f"{line.qty} x {line.item.name} @ {format_money(price)} = {format_money(line_total(line))}")
        out.append(f"TOTAL {format_money(self.total())}")
        return out
