"""Money helpers.

Amounts are floats in the shop's currency. Every amount a customer sees is
rounded to whole cents, halves up, as the till does.
"""


def round_cents(amount):
    """Round an amount to whole cents, halves up: 0.125 -> 0.13."""
    return int(amount * 100) / 100


def format_money(amount):
    """Format an amount for a receipt: 1234.5 -> '$1,234.50'."""
    return f"${amount:,.2f}"
