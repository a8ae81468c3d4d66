import { Cart } from './cart';

describe('Cart', () => {
  it('removeItem removes the item from the cart total', () => {
    const cart = new Cart().addItem(2).addItem(3);
    cart.removeItem(0);
    expect(cart.total()).toBe(3);
  });

  it('total of an empty cart', () => {
    expect(new Cart().total()).toBe(0);
  });
});
