import { Service, Key } from './service';
import MemoryStore from '../store/memory';

export class Repo extends Service {
  constructor(private store: MemoryStore) {
    super();
  }

  name(): string {
    return 'repo';
  }

  find(key: Key): string | undefined {
    this.log(`find ${key}`);
    return this.store.get(key);
  }
}
