"""A tiny shop inventory: prices, discounts and carts."""
