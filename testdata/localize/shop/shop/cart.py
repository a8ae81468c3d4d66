"""Shopping carts."""

from dataclasses import dataclass, field

from .pricing import price_items


@dataclass
class Item:
    name: str
    price: float
    discount: float = 0.0
    quantity: int = 1


@dataclass
class Cart:
    items: list = field(default_factory=list)

    def add_item(self, item):
        """Add an item, merging quantities of items with the same name."""
        for existing in self.items:
            if existing.name == item.name:
                existing.quantity += item.quantity
                return
        self.items.append(item)

    def remove_item(self, name):
        self.items = [i for i in self.items if i.name != name]

    def total(self):
        """The amount to pay for the whole cart, discounts applied."""
        return sum(price_items(self.items))

    def is_empty(self):
        return not self.items
