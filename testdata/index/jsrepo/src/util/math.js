const add = (a, b) => a + b;

export function sum(xs) {
  return xs.reduce(add, 0);
}

export function* range(n) {
  for (let i = 0; i < n; i++) yield i;
}
