import { describe, expect, it } from 'vitest';
import { scaledClock } from '../../src/cli/demo/scaled-clock.js';
import { Pacer, type PacerClock } from '../../src/cli/replay/pacer.js';

/** A pacer clock that moves only when something sleeps on it. */
function fakePacerClock(): PacerClock {
  let now = 1_000;
  return {
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  };
}

describe('replay --rate (Pacer)', () => {
  it('spaces starts evenly at the rate, whoever asks', async () => {
    const clock = fakePacerClock();
    const pacer = new Pacer(4, clock);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await pacer.wait();
      starts.push(clock.now());
    }
    expect(starts).toEqual([1_000, 1_250, 1_500, 1_750, 2_000]);
  });

  it('does not save up slots missed while nobody asked: no burst after a pause', async () => {
    const clock = fakePacerClock();
    const pacer = new Pacer(10, clock);
    await pacer.wait();
    await clock.sleep(5_000);
    const afterPause = clock.now();
    await pacer.wait();
    await pacer.wait();
    expect(clock.now() - afterPause).toBe(100);
  });
});

describe('demo --time-scale (scaledClock)', () => {
  it('runs the given factor faster than the clock it reads, from the moment it is made', () => {
    let real = 1_700_000_000_000;
    const clock = scaledClock(60, () => real);
    expect(clock()).toBe(1_700_000_000_000);
    real += 1_000;
    expect(clock()).toBe(1_700_000_060_000);
  });
});
