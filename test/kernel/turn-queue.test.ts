import { describe, expect, it } from 'vitest';
import { FOLLOW_UP_FLUSHES, TurnQueue } from '../../src/kernel/turn-queue.js';

/** Resolves after `hops` promise hops: a handler that awaits without doing I/O. */
async function afterHops(hops: number): Promise<void> {
  for (let i = 0; i < hops; i++) await Promise.resolve();
}

describe('TurnQueue', () => {
  it('hands everything pushed in one turn to one flush', async () => {
    const batches: number[][] = [];
    const queue = new TurnQueue<number>((batch) => batches.push(batch));
    queue.push(1);
    queue.push(2);
    queue.push(3);
    expect(batches).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('flushes what the batch’s own promise chains push in the same turn, before the next turn starts', async () => {
    // A claim batch resumes its handlers, which complete a few hops later: the completions must
    // not wait a whole turn of the event loop (it would add a turn to every request's latency).
    const batches: string[][] = [];
    let nextTurnSaw: string[][] | undefined;
    const queue = new TurnQueue<string>((batch) => {
      batches.push(batch);
      if (batches.length === 1) {
        setImmediate(() => (nextTurnSaw = batches.map((flushed) => [...flushed])));
        for (const item of batch) void afterHops(5).then(() => queue.push(`${item} done`));
      }
    });
    queue.push('a');
    queue.push('b');
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(nextTurnSaw).toEqual([['a', 'b'], ['a done', 'b done']]);
    expect(batches).toEqual([['a', 'b'], ['a done', 'b done']]);
  });

  it('stops following up a chain that keeps pushing after FOLLOW_UP_FLUSHES, so the next turn’s I/O is not held back', async () => {
    const batches: number[][] = [];
    let nextTurnSaw = -1;
    const queue = new TurnQueue<number>((batch) => {
      batches.push(batch);
      if (batches.length === 1) setImmediate(() => (nextTurnSaw = batches.length));
      // Every flush pushes again at once: without a bound this would never yield to I/O.
      void Promise.resolve().then(() => queue.push(batch[0]! + 1));
    });
    queue.push(0);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(nextTurnSaw).toBe(1 + FOLLOW_UP_FLUSHES);
    expect(batches.slice(0, nextTurnSaw).map(([first]) => first)).toEqual([0, 1, 2, 3, 4]);
  });
});
