import unittest

from inventory.pricing import apply_discount, unit_price


class ApplyDiscountTest(unittest.TestCase):
    def test_ten_percent(self):
        self.assertEqual(apply_discount(200, 10), 180.0)

    def test_no_discount(self):
        self.assertEqual(apply_discount(99.99, 0), 99.99)

    def test_full_discount(self):
        self.assertEqual(apply_discount(50, 100), 0.0)

    def test_rejects_more_than_100(self):
        with self.assertRaises(ValueError):
            apply_discount(10, 150)

    def test_rejects_negative(self):
        with self.assertRaises(ValueError):
            apply_discount(10, -5)


class UnitPriceTest(unittest.TestCase):
    def test_split(self):
        self.assertEqual(unit_price(10, 4), 2.5)


if __name__ == "__main__":
    unittest.main()
