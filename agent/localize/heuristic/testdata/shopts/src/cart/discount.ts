const CODES: Record<string, number> = { WELCOME: 0.1, LOYAL: 0.2 };

export interface Line {
  price: number;
  quantity: number;
}

export function applyDiscount(total: number, code?: string): number {
  if (!code) {
    return total;
  }
  const rate = CODES[code.toUpperCase()];
  if (rate === undefined) {
    throw new Error(`unknown discount code ${code}`);
  }
  return total * (1 - rate);
}

export function lineTotal(line: Line): number {
  return line.price * line.quantity;
}
