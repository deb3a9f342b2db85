import { describe, expect, it } from 'vitest';
import { createTestEvent } from '../../src/testing/index.js';
import { FakeClock } from '../helpers/clock.js';
import { BASE, setup } from './fixtures.js';
import { placeLabels } from '../../src/dashboard/delivery-timeline.js';

const MINUTE = 60_000;

/** The timeline's points, as their data attributes give them. */
function pointsOf(page: string): { kind: string; number: number; at: number; status: string | undefined }[] {
  const svg = /<section class="timeline"[\s\S]*?<\/svg>/.exec(page)![0];
  return [...svg.matchAll(/<g data-kind="(\w+)" data-number="(\d+)" data-at="([^"]+)"(?: data-status="(\w+)")?/g)].map((match) => ({
    kind: match[1]!,
    number: Number(match[2]),
    at: Date.parse(match[3]!),
    status: match[4],
  }));
}

describe("a delivery's timeline", () => {
  it('draws the attempts made and the ones the schedule plans, and says which is next and when the last is', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    let status = 500;
    const s = await setup({ answer: () => status, dispatcher: { clock: clock.now }, clock: clock.now });
    await s.dispatcher.webhooks.create({ url: s.targetUrl, events: ['invoice.*'] });
    const event = createTestEvent('invoice.paid');
    await s.dispatcher.emit(event);
    // The default schedule: attempts at 0, 1, 6, 36, 156, 636 and 2076 minutes; four fail.
    for (const at of [0, 1, 6, 36]) {
      clock.set(start + at * MINUTE);
      await s.dispatcher.runDue();
    }
    clock.set(start + 56 * MINUTE);
    const [delivery] = await s.dispatcher.deliveries.list({ event_id: event.id });
    const page = (await s.client.get(`${BASE}/deliveries/${delivery!.id}`)).text;
    expect(page).toContain('<p id="timeline-summary">Attempt 5 of 7 by the schedule is next, in 1 h 40 min; the last, attempt 7 of 7, in 1 d 9 h if the ones before fail.</p>');
    expect(pointsOf(page)).toEqual([
      { kind: 'attempt', number: 1, at: start, status: '500' },
      { kind: 'attempt', number: 2, at: start + MINUTE, status: '500' },
      { kind: 'attempt', number: 3, at: start + 6 * MINUTE, status: '500' },
      { kind: 'attempt', number: 4, at: start + 36 * MINUTE, status: '500' },
      { kind: 'planned', number: 5, at: start + 156 * MINUTE, status: undefined },
      { kind: 'planned', number: 6, at: start + 636 * MINUTE, status: undefined },
      { kind: 'planned', number: 7, at: start + 2076 * MINUTE, status: undefined },
    ]);
    // The table: each automatic attempt's planned time is a schedule step after the one before began.
    const planned = [...page.matchAll(/<tr><th scope="row">(\d+)<\/th><td><time datetime="([^"]+)">/g)].map((match) => [Number(match[1]), Date.parse(match[2]!)]);
    expect(planned).toEqual([0, 1, 6, 36, 156, 636, 2076].map((at, index) => [index + 1, start + at * MINUTE]));
    expect(page).toMatch(/<td class="num">\d+ ms<\/td>/);

    // A manual retry that delivers: no more planned attempts.
    status = 200;
    await s.client.post(`${BASE}/deliveries/${delivery!.id}/retry`);
    const delivered = (await s.client.get(`${BASE}/deliveries/${delivery!.id}`)).text;
    expect(delivered).toContain('<p id="timeline-summary">Delivered by attempt 5, 56 min after the delivery was created.</p>');
    expect(pointsOf(delivered).map((point) => [point.kind, point.number, point.status])).toEqual([
      ['attempt', 1, '500'],
      ['attempt', 2, '500'],
      ['attempt', 3, '500'],
      ['attempt', 4, '500'],
      ['attempt', 5, '200'],
    ]);
    expect(delivered).toContain('<tr><th scope="row">5 (manual)</th><td><span class="muted">—</span></td>');
  });
});

describe("the timeline's labels", () => {
  const CHAR = 6.8;
  /** The label boxes of one row never overlap and stay inside the chart. */
  function expectApart(labels: { x: number; text: string }[], width: number): void {
    const places = placeLabels(labels, width);
    const boxes = places.flatMap((place, index) => (place === null ? [] : [{ ...place, half: (labels[index]!.text.length * CHAR) / 2 }]));
    for (const box of boxes) {
      expect(box.x - box.half).toBeGreaterThanOrEqual(0);
      expect(box.x + box.half).toBeLessThanOrEqual(width);
    }
    for (const [i, a] of boxes.entries()) {
      for (const b of boxes.slice(i + 1)) {
        if (a.y === b.y) expect(Math.abs(a.x - b.x), `${JSON.stringify(a)} and ${JSON.stringify(b)}`).toBeGreaterThanOrEqual(a.half + b.half);
      }
    }
  }

  it('spread points keep every label; crowded ones keep those that fit and drop the rest, never overlapping', () => {
    const spread = [40, 200, 360, 520, 700].map((x, index) => ({ x, text: `${index + 1}: +${index} h 10 min` }));
    expect(placeLabels(spread).every((place) => place !== null)).toBe(true);
    expectApart(spread, 760);
    // Seven attempts a second apart (manual retries) sit on one spot: four rows, three dropped.
    const crowded = Array.from({ length: 7 }, (_, index) => ({ x: 41 + index * 0.3, text: `${index + 1}: +${index} s` }));
    const places = placeLabels(crowded);
    expect(places.filter((place) => place !== null)).toHaveLength(4);
    expectApart(crowded, 760);
  });

  it('holds for random points at the edges and in the middle', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (let run = 0; run < 100; run++) {
      const labels = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, index) => ({ x: random() * 760, text: `${index + 1}: +${Math.floor(random() * 40)} h ${Math.floor(random() * 60)} min` })).sort((a, b) => a.x - b.x);
      expectApart(labels, 760);
    }
  });
});
