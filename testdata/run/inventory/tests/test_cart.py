import unittest

from inventory.cart import Cart


class CartTest(unittest.TestCase):
    def test_total_with_discount(self):
        cart = Cart(discount=10)
        cart.add("lamp", 100)
        cart.add("bulb", 50, quantity=2)
        self.assertEqual(cart.total(), 180.0)

    def test_total_without_discount(self):
        cart = Cart()
        cart.add("lamp", 19.99)
        self.assertEqual(cart.total(), 19.99)


if __name__ == "__main__":
    unittest.main()
