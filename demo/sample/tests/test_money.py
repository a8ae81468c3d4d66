import unittest

from shop.money import format_money, round_cents


class RoundCentsTest(unittest.TestCase):
    def test_whole_cents_stay(self):
        for amount in (0.0, 1.25, 2.5, 10.0):
            with self.subTest(amount=amount):
                self.assertEqual(round_cents(amount), amount)

    def test_halves_round_up(self):
        self.assertEqual(round_cents(0.125), 0.13)
        self.assertEqual(round_cents(2.345), 2.35)

    def test_format(self):
        self.assertEqual(format_money(1234.5), "$1,234.50")


if __name__ == "__main__":
    unittest.main()
