from shop.orders.models import Order
from shop.payments import Gateway, PaymentError, charge


def checkout_view(request, client):
    order = Order(request["customer"])
    for item in request["items"]:
        order.add_line(item["sku"], item["quantity"], item["price"])
    if order.is_empty:
        return {"status": 400, "error": "empty order"}
    try:
        receipt = charge(Gateway(client), order)
    except PaymentError as exc:
        return {"status": 502, "error": str(exc)}
    return {"status": 200, "receipt": receipt}
