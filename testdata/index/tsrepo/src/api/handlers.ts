import { Repo } from '@core/repo';
import * as stores from '../store';

export const handlers = {
  list: async (): Promise<string[]> => [],
  show(id: string) {
    const repo = new Repo(stores.create());
    return repo.find(id);
  },
};

export function route(path: string, repo: Repo): string | undefined {
  return path === '/' ? repo.name() : handlers.show(path);
}
