import { Cart } from '../cart';

export function CartView({ cart }: { cart: Cart }) {
  return <p>Total: {cart.total()}</p>;
}
