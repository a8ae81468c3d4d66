"""A shopping cart."""

from inventory.pricing import apply_discount, round_cents


class Cart:
    """Items with prices, and one discount for the whole cart."""

    def __init__(self, discount=0):
        self.items = []
        self.discount = discount

    def add(self, name, price, quantity=1):
        self.items.append((name, price, quantity))

    def subtotal(self):
        return round_cents(sum(price * qty for _, price, qty in self.items))

    def total(self):
        """The subtotal after the cart's discount (a percentage)."""
        return apply_discount(self.subtotal(), self.discount)
