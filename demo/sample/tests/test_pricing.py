import unittest

from shop.cart import Item, Line
from shop.pricing import line_total, tier_rate, unit_price

NOTEBOOK = Item("nb-a5", "Notebook", 6.00)


class PricingTest(unittest.TestCase):
    def test_tiers(self):
        self.assertEqual([tier_rate(q) for q in (1, 4, 5, 9, 10, 50)], [0, 0, 0.05, 0.05, 0.10, 0.10])

    def test_unit_price_without_tier(self):
        self.assertEqual(unit_price(NOTEBOOK, 1), 6.00)

    def test_unit_price_with_tier(self):
        self.assertEqual(unit_price(NOTEBOOK, 5), 5.70)
        self.assertEqual(unit_price(NOTEBOOK, 10), 5.40)

    def test_line_total(self):
        self.assertEqual(line_total(Line(NOTEBOOK, 2)), 12.00)


if __name__ == "__main__":
    unittest.main()
