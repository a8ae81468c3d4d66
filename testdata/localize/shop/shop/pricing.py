"""Prices of cart lines, with per-item discounts."""

from .money import round_money


def price_items(items):
    """Price each cart line: unit price, discount, quantity."""
    return [apply_discount(item.price, item.discount) * item.quantity for item in items]


def apply_discount(price, rate):
    """Reduce a price by a discount rate between 0 and 1."""
    if not 0 <= rate <= 1:
        raise ValueError(f"discount rate {rate} is not between 0 and 1")
    return round_money(price * (1 - rate))


def tax(amount, rate=0.2):
    return round_money(amount * rate)
