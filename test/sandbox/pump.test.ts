import { describe, expect, it } from 'vitest';
import { DeliveryPump } from '../../src/sandbox/pump.js';

/* The delivery pump: background runs, and a clock advance that runs alone. */

/** A promise and the function that settles it: the test decides when a run ends. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A Dispatcher stand-in whose runs end when the test opens their gate; it records what ran when. */
function fakeDispatcher() {
  const gates: ReturnType<typeof gate>[] = [];
  const log: string[] = [];
  return {
    log,
    gates,
    runDue: async () => {
      const run = gate();
      gates.push(run);
      log.push(`run ${gates.length} started`);
      await run.promise;
      log.push(`run ${gates.indexOf(run) + 1} ended`);
      return 1;
    },
  };
}

describe('DeliveryPump', () => {
  it('alone() waits for the runs in flight, starts none beside its work, and makes one run for the kicks it held back', async () => {
    const dispatcher = fakeDispatcher();
    const pump = new DeliveryPump(dispatcher, (error) => {
      throw error;
    });
    pump.kick();
    expect(dispatcher.log).toEqual(['run 1 started']);
    const advanced = pump.alone(() => {
      dispatcher.log.push('advance');
      pump.kick();
      pump.kick();
      dispatcher.log.push('advance done');
      return Promise.resolve();
    });
    await Promise.resolve();
    expect(dispatcher.log).toEqual(['run 1 started']);
    dispatcher.gates[0]!.open();
    await advanced;
    expect(dispatcher.log).toEqual(['run 1 started', 'run 1 ended', 'advance', 'advance done', 'run 2 started']);
    dispatcher.gates[1]!.open();
    await pump.settle();
    expect(dispatcher.log.at(-1)).toBe('run 2 ended');
    expect(dispatcher.gates).toHaveLength(2);
  });

  it('after alone() with no kick held back, starts nothing', async () => {
    const dispatcher = fakeDispatcher();
    const pump = new DeliveryPump(dispatcher, () => undefined);
    await pump.alone(() => Promise.resolve());
    expect(dispatcher.log).toEqual([]);
  });
});
