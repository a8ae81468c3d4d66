from shop.payments import charge, PaymentError


class FlakyGateway:
    def __init__(self, failures):
        self.failures = failures

    def send(self, amount, currency):
        if self.failures:
            self.failures -= 1
            raise PaymentError("flaky")
        return {"amount": amount, "currency": currency}


def test_charge_retries():
    from shop.orders.models import Order
    order = Order("bob")
    order.add_line("x", 1, "5")
    assert charge(FlakyGateway(2), order)["amount"] == 5
