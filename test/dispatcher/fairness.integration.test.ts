import { join } from 'node:path';
import { describe } from 'vitest';
import { CONCURRENCY, starvationCase } from './fairness-case.js';
import { tempDir, testDispatcher } from './fixtures.js';

describe('fairness on SQLite: one business cannot starve another', () => {
  for (const workers of [1, 2]) {
    describe(`${workers} worker(s) on one file`, () => {
      let file = '';
      starvationCase(workers, () => {
        file ||= join(tempDir(), 'dispatch.db');
        return testDispatcher({ database: file, concurrency: CONCURRENCY });
      });
    });
  }
});
