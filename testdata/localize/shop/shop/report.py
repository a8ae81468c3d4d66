"""Printable order summaries."""

from .money import format_money


def render_report(cart):
    lines = [f"{item.quantity} x {item.name}" for item in cart.items]
    lines.append("total: " + format_money(cart.total()))
    return "\n".join(lines)
