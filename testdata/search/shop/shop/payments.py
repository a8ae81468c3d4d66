import time

from shop.settings import MAX_RETRIES, RETRY_DELAY_SECONDS


class PaymentError(Exception):
    pass


class Gateway:
    def __init__(self, client):
        self.client = client

    def send(self, amount, currency):
        return self.client.post("/charge", {"amount": str(amount), "currency": currency})


def charge(gateway, order, max_retries=MAX_RETRIES):
    """Charge an order, retrying transient failures."""
    amount = order.total()
    for attempt in range(max_retries):
        try:
            receipt = gateway.send(amount, order.currency)
        except PaymentError:
            time.sleep(RETRY_DELAY_SECONDS * (attempt + 1))
            continue
        order.paid = True
        return receipt
    raise PaymentError("gave up after %d attempts" % max_retries)


def refund(gateway, receipt):
    return gateway.send(-receipt["amount"], receipt["currency"])


Processor = Gateway  # the old public name
