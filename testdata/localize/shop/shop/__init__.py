"""A tiny shop: carts, prices with discounts, and reports."""

from .cart import Cart, Item

__all__ = ["Cart", "Item"]
