import MemoryStore from './memory';

export { MemoryStore };

export function create(): MemoryStore {
  const store = new MemoryStore();
  store.set('1', 'one');
  return store;
}
