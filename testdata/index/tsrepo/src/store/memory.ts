import type { Store, Key } from '@core/service';

export default class MemoryStore implements Store {
  private data = new Map<Key, string>();

  get(key: Key): string | undefined {
    return this.data.get(key);
  }

  set(key: Key, value: string): void {
    this.data.set(key, value);
  }
}
