import { Cart } from '../src/cart';

// Checkout example: add items, use a discount code, print the cart total.
const cart = new Cart();
cart.addItem(10).addItem(5, 2);
cart.useCode('welcome');
console.log('cart total with discount code', cart.total());
