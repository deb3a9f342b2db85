import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../src/stores/sqlite/group-commit.js';

function setup() {
  const db = new BetterSqlite3(':memory:');
  db.exec('CREATE TABLE items (value TEXT NOT NULL UNIQUE)');
  // Count the batches: GroupCommit opens each with an IMMEDIATE transaction.
  let batches = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: (...args: never[]) => unknown) => {
    const wrapped = transaction(fn);
    return Object.assign((...args: never[]) => wrapped(...args), {
      immediate: (...args: never[]) => {
        batches += 1;
        return wrapped.immediate(...args);
      },
    });
  }) as unknown as typeof db.transaction;
  const insert = db.prepare<[string]>('INSERT INTO items (value) VALUES (?)');
  const group = new GroupCommit(db);
  // Two statements when the value is bad: the insert, then the refusal — undone together.
  const add = (value: string) =>
    group.write(
      () => {
        insert.run(value);
        if (value.startsWith('bad')) throw new Error(`refused ${value}`);
        return (db.prepare('SELECT COUNT(*) AS n FROM items').get() as { n: number }).n;
      },
      { savepoint: true },
    );
  const values = () => (db.prepare('SELECT value FROM items ORDER BY rowid').all() as { value: string }[]).map((row) => row.value);
  return { db, add, values, batches: () => batches };
}

describe('GroupCommit', () => {
  it('runs everything submitted in one event-loop turn in one transaction, each with its own result', async () => {
    const { add, values, batches } = setup();
    expect(await Promise.all(['a', 'b', 'c'].map(add))).toEqual([1, 2, 3]);
    expect(batches()).toBe(1);
    expect(await add('d')).toBe(4);
    expect(batches()).toBe(2);
    expect(values()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rejects a failing unit and undoes its writes; the others of the batch are stored', async () => {
    const { add, values } = setup();
    const outcomes = await Promise.allSettled([add('a'), add('bad-1'), add('c'), add('a')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('refused bad-1'));
    expect(values()).toEqual(['a', 'c']);
  });

  it('rejects every unit when the transaction cannot run, and resolves none', async () => {
    const { db, add } = setup();
    db.close();
    const outcomes = await Promise.allSettled([add('a'), add('b')]);
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
  });
});
