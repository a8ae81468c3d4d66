import Base from './base.js';
import { sum, round } from './util';
import * as money from './format.mjs';

class Item {
  constructor(price) {
    this.price = price;
  }
}

export class Cart extends Base {
  constructor() {
    super();
    this.items = [];
  }

  add(price) {
    this.items.push(new Item(price));
    return this;
  }

  get total() {
    return round(sum(this.items.map((i) => i.price)));
  }

  save() {
    super.save();
    return money.default(this.total);
  }

  #audit() {
    return this.items.length;
  }

  check = () => this.#audit();
}
