import { describe, expect, it } from 'vitest';
import { sampleEvent } from '../../../src/events/sample-event.js';
import { postgresDispatchStore } from '../../../src/stores/postgres/index.js';
import type { DispatchStore } from '../../../src/ports/dispatch-store.js';
import { closeWhenFinished } from '../../helpers/contracts.js';
import { useTestDatabase } from '../../helpers/postgres.js';

/*
 * The events feed on PostgreSQL while two stores (two pools: two processes, as far as the
 * database can tell) record one business's events concurrently: a reader that pages by position
 * all along sees every event once, in the feed's order, although the inserts commit in any order.
 */

describe('PostgreSQL: the events feed under concurrent emits', () => {
  const database = useTestDatabase({ poolSize: 2 });

  it('a reader paging by position while 240 events are recorded from 2 pools misses and repeats none', async () => {
    const schema = database.newSchema();
    const stores = [0, 1].map(() => closeWhenFinished(postgresDispatchStore(database.url, { schema, poolSize: 6 })));
    await Promise.all(stores.map((store) => store.ready()));
    const record = (store: DispatchStore, i: number) => {
      const event = { ...sampleEvent('invoice.paid', { id: `evt_${i}` }), business_id: i % 5 === 0 ? 'biz_other' : 'biz_feed' };
      return store.insertEvent({ id: event.id, type: event.type, payload: JSON.stringify(event), correlation_id: event.correlation_id, test: false, created_at: 1_800_000_000_000 + i }, []);
    };

    let done = false;
    const writers = stores.map(async (store, s) => {
      // 6 inserts in flight per pool at a time.
      for (let batch = 0; batch < 20; batch++) await Promise.all(Array.from({ length: 6 }, (_, k) => record(store, s * 1000 + batch * 6 + k)));
    });
    const all = Promise.all(writers).then(() => {
      done = true;
    });
    const seen: string[] = [];
    let after = 0;
    let reads = 0;
    for (;;) {
      const finished = done;
      const page = await stores[0]!.listEvents!({ business_id: 'biz_feed', after_seq: after, limit: 7 });
      reads++;
      seen.push(...page.map((event) => event.id));
      after = page.at(-1)?.seq ?? after;
      if (finished && page.length === 0) break;
    }
    await all;

    const everything = (await stores[1]!.listEvents!({ business_id: 'biz_feed', limit: 1000 })).map((event) => event.id);
    expect(everything).toHaveLength(192);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(everything);
    expect(reads).toBeGreaterThan(2);
  }, 60_000);
});
