"""Prices and discounts."""


def round_cents(amount):
    """Round an amount of money to whole cents."""
    return round(amount + 0.0, 2)


def apply_discount(price, percent):
    """Return price reduced by percent, a number from 0 to 100.

    apply_discount(200, 10) is 180.0.
    """
    return round_cents(price - price * percent)


def unit_price(total, quantity):
    """Price of one item out of a total for quantity items."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    return round_cents(total / quantity)
