// The package's entry: a barrel of re-exports.
export { Cart } from './cart.js';
export * from './util/index.js';
export { default as format } from './format.mjs';
