from shop.orders.models import Order


class GiftOrder(Order):
    """An order wrapped as a gift, with a message for the recipient."""

    def __init__(self, customer, message):
        super().__init__(customer)
        self.message = message

    def wrap(self):
        return {"message": self.message, "total": self.total()}
