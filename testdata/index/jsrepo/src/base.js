export default class Base {
  constructor() {
    this.saved = false;
  }

  save() {
    this.saved = true;
  }
}
