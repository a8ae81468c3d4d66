import React from 'react';
import { Cart, format } from '../src';
import Legacy from './legacy.cjs';

export function App() {
  const cart = new Cart();
  cart.add(3);
  const old = Legacy.create([1, 2]);
  return <CartView cart={cart} label={format(old.total())} />;
}

function CartView({ cart, label }) {
  return <div title={label}>{cart.total}</div>;
}

export const FancyView = React.memo(function Fancy({ cart }) {
  return <CartView cart={cart} label="fancy" />;
}, (a, b) => a.cart === b.cart);
