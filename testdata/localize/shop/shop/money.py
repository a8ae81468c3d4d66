"""Money amounts: rounding to cents and formatting."""

import math


def round_money(amount):
    """Round an amount to whole cents."""
    return math.floor(amount * 100) / 100


def format_money(amount, currency="EUR"):
    return f"{amount:.2f} {currency}"


def parse_money(text):
    number, _, currency = text.partition(" ")
    return float(number), currency or "EUR"
