from shop.cart import Cart, Item


def test_total_with_discount():
    cart = Cart()
    cart.add_item(Item("pen", 1.99, discount=0.5))
    assert cart.total() == 1.0


def test_add_item_merges():
    cart = Cart()
    cart.add_item(Item("pen", 1.0))
    cart.add_item(Item("pen", 1.0))
    assert cart.items[0].quantity == 2
