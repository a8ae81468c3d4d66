"""A small shop: orders, payments and their views."""
from shop.orders.models import Order, OrderLine
from shop.payments import charge

__all__ = ["Order", "OrderLine", "charge"]
