"""A small shop: items, carts, volume pricing and discounts."""

from .cart import Cart, Item

__all__ = ["Cart", "Item"]
