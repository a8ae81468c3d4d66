export interface Store {
  get(key: Key): string | undefined;
}

export type Key = string;

export enum Mode {
  Read,
  Write,
}

export abstract class Service {
  abstract name(): string;

  log(msg: string): void {
    console.log(`[${this.name()}] ${msg}`);
  }
}
