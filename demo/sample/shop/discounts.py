"""Order-level discounts, applied after volume pricing."""

from .money import round_cents

BULK_ITEMS = 20
BULK_RATE = 0.05


def bulk_discount(subtotal, count):
    """Five per cent off the whole order from twenty items up."""
    if count < BULK_ITEMS:
        return 0.0
    return round_cents(subtotal * BULK_RATE)
