import { describe, expect, it, onTestFinished } from 'vitest';
import { dashboardFetchHandler } from '../../../src/dashboard/index.js';
import { createReceiver, Webhooks } from '../../../src/index.js';
import { postgresDispatchStore, postgresStore } from '../../../src/stores/postgres/index.js';
import { createTestEvent, signedRequest } from '../../../src/testing/index.js';
import { closeWhenFinished } from '../../helpers/contracts.js';
import { Receiver, testDispatcher } from '../../dispatcher/fixtures.js';
import { useTestDatabase } from '../../helpers/postgres.js';
import { withServer } from '../../helpers/server.js';

describe('the dashboard on a PostgreSQL dispatcher', () => {
  const database = useTestDatabase({ poolSize: 4 });

  it('lists, counts and filters deliveries by the latest HTTP status class and correlation id', async () => {
    let status = 503;
    const target = new Receiver(() => status);
    await withServer(target.listener, async (url) => {
      const store = closeWhenFinished(postgresDispatchStore(database.url, { schema: database.newSchema(), poolSize: 4 }));
      const dispatcher = testDispatcher({ store });
      await dispatcher.webhooks.create({ url: `${url}/hooks`, events: ['*'] });
      const events = [];
      for (let index = 0; index < 6; index++) {
        status = index < 4 ? 503 : 200;
        const event = createTestEvent('payment.received');
        events.push(event);
        await dispatcher.emit(event);
        await dispatcher.runDue();
      }
      const board = dashboardFetchHandler({ dispatcher, authorize: () => true });
      const page = async (query: string) => (await board(new Request(`http://127.0.0.1/deliveries?${query}`))).text();
      expect(await page('')).toMatch(/of <strong>6<\/strong> deliveries/);
      expect(await page('http=5xx')).toMatch(/of <strong>4<\/strong> deliveries/);
      expect(await page('http=2xx&status=delivered')).toMatch(/of <strong>2<\/strong> deliveries/);
      expect(await page(`q=${events[5]!.correlation_id}`)).toMatch(/of <strong>1<\/strong> deliveries/);
      expect(await dispatcher.deliveries.count({ response_status_class: '5xx', status: 'retrying' })).toBe(4);
    });
  });

  it('lists the received events of a PostgreSQL store, newest first, by outcome', async () => {
    const secret = 'whsec_dashboardPostgres';
    const store = postgresStore(database.url, { schema: database.newSchema() });
    onTestFinished(() => store.close());
    // One millisecond apart, so that "newest first" has one answer.
    let now = Date.now();
    const receiver = createReceiver({ secret, store, handlers: new Webhooks().onAny(() => 'ok'), logger: false, clock: () => now++ });
    const events = [createTestEvent('invoice.sent'), createTestEvent('uva.confirmed')];
    for (const event of events) {
      const { body, headers } = signedRequest(event, secret);
      expect((await receiver.receive({ rawBody: body, headers, method: 'POST' })).status).toBe(200);
    }
    const board = dashboardFetchHandler({ receiver, authorize: () => true, basePath: '/ops' });
    const html = await (await board(new Request('http://127.0.0.1/ops/receiver/events?state=completed'))).text();
    expect(html).toContain('Page 1 of 1 (2 events)');
    expect(html.indexOf(events[1]!.id)).toBeGreaterThan(-1);
    expect(html.indexOf(events[1]!.id)).toBeLessThan(html.indexOf(events[0]!.id));
  });
});
