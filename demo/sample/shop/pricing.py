"""Volume pricing: buying more of one item lowers its unit price."""

from .money import round_cents

# (minimum quantity, discount rate), largest first.
TIERS = ((10, 0.10), (5, 0.05))


def tier_rate(qty):
    """The volume discount rate for buying qty of one item."""
    for minimum, rate in TIERS:
        if qty >= minimum:
            return rate
    return 0.0


def unit_price(item, qty):
    """The price of one unit of item when qty are bought, in whole cents."""
    rate = tier_rate(qty)
    if not rate:
        return item.price
    return round_cents(item.price * (1 - rate))


def line_total(line):
    """What one cart line costs: its unit price times its quantity."""
    return round(unit_price(line.item, line.qty) * line.qty, 2)
