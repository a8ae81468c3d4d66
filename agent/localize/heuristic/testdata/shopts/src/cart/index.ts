export { Cart } from './cart';
export * from './discount';
