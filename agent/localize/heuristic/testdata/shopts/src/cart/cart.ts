import { applyDiscount, lineTotal, Line } from './discount';

export class Cart {
  private lines: Line[] = [];
  private code?: string;

  addItem(price: number, quantity = 1): this {
    this.lines.push({ price, quantity });
    return this;
  }

  removeItem(index: number): this {
    this.lines.slice(index, 1);
    return this;
  }

  useCode(code: string): void {
    this.code = code;
  }

  total(): number {
    const sum = this.lines.reduce((acc, l) => acc + lineTotal(l), 0);
    return applyDiscount(sum, this.code);
  }
}
