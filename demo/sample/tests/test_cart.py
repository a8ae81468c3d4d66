import unittest

from shop import Cart, Item

NOTEBOOK = Item("nb-a5", "Notebook", 6.00)
PEN = Item("pen-blk", "Pen", 1.50)


class CartTest(unittest.TestCase):
    def test_total_without_discounts(self):
        cart = Cart()
        cart.add(NOTEBOOK, 2)
        cart.add(PEN, 3)
        self.assertEqual(cart.total(), 16.50)

    def test_total_with_volume_price(self):
        cart = Cart()
        cart.add(NOTEBOOK, 5)
        self.assertEqual(cart.total(), 28.50)

    def test_same_item_merges(self):
        cart = Cart()
        cart.add(PEN)
        cart.add(PEN, 2)
        self.assertEqual(len(cart.lines), 1)
        self.assertEqual(cart.count(), 3)

    def test_bulk_discount(self):
        cart = Cart()
        cart.add(PEN, 20)
        # 20 pens at the 10% tier: 20 x 1.35 = 27.00, less 5% bulk = 25.65
        self.assertEqual(cart.total(), 25.65)

    def test_receipt_adds_up(self):
        cart = Cart()
        cart.add(NOTEBOOK, 5)
        self.assertEqual(cart.receipt(), [
            "5 x Notebook @ $5.70 = $28.50",
            "TOTAL $28.50",
        ])


if __name__ == "__main__":
    unittest.main()
