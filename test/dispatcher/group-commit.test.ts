import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/dispatcher/group-commit.js';

function setup() {
  const db = new BetterSqlite3(':memory:');
  db.exec('CREATE TABLE items (value TEXT NOT NULL UNIQUE)');
  let transactions = 0;
  const insert = db.prepare<[string]>('INSERT INTO items (value) VALUES (?)');
  const group = new GroupCommit<string, number>(
    (work) => {
      transactions += 1;
      db.transaction(work).immediate();
    },
    (value) =>
      db.transaction(() => {
        insert.run(value);
        if (value.startsWith('bad')) throw new Error(`refused ${value}`);
        return (db.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
      })(),
  );
  const values = () => (db.prepare('SELECT value FROM items ORDER BY rowid').all() as { value: string }[]).map((row) => row.value);
  return { db, group, values, transactions: () => transactions };
}

describe('GroupCommit', () => {
  it('runs everything submitted in one event-loop turn in one transaction, each with its own result', async () => {
    const { group, values, transactions } = setup();
    const results = await Promise.all(['a', 'b', 'c'].map((value) => group.submit(value)));
    expect(results).toEqual([1, 2, 3]);
    expect(transactions()).toBe(1);
    expect(await group.submit('d')).toBe(4);
    expect(transactions()).toBe(2);
    expect(values()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a failing item is rejected and its writes undone; the others of the batch are stored', async () => {
    const { group, values } = setup();
    const outcomes = await Promise.allSettled([group.submit('a'), group.submit('bad-1'), group.submit('c')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused bad-1'));
    expect(values()).toEqual(['a', 'c']);
  });

  it('rejects every item when the transaction cannot run, and resolves none', async () => {
    const { db, group } = setup();
    db.close();
    const outcomes = await Promise.allSettled([group.submit('a'), group.submit('b')]);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
  });
});
