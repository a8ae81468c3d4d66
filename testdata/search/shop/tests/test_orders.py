from shop.orders.models import Order, merge_orders


def test_total():
    order = Order("ann")
    order.add_line("a", 2, "1.50")
    assert order.total() == 3


def test_merge_orders():
    a, b = Order("ann"), Order("ann")
    a.add_line("a", 1, "1")
    b.add_line("b", 1, "2")
    assert merge_orders(a, b).total() == 3
