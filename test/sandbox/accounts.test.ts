import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { austrianUid } from '../../src/sandbox/accounts.js';
import { createSandbox, type Sandbox, type SandboxTestAccount } from '../../src/sandbox/index.js';
import { temporaryDirectory } from '../cli/helpers.js';
import { apiClient, TestReceiver, type ApiCall, type Json } from './helpers.js';

/*
 * Several accounts in one sandbox: each key reaches its own account's resources, webhooks and
 * events; another account's id is 403 FORBIDDEN with the error envelope and nothing of the other
 * account in it; lists are the account's own; an event reaches its own account's webhooks only.
 */

const ACCOUNTS = 3;

/** What one account made before the walk: an id of every kind the routes take. */
interface Made {
  account: SandboxTestAccount;
  call: ApiCall;
  receiver: TestReceiver;
  ids: Record<string, string>;
}

async function data(call: ApiCall, method: string, path: string, body?: unknown): Promise<Json> {
  const answer = await call(method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body?.data;
}

/** One of every resource of an account, and a delivery and an event of its own. */
async function makeEverything(sandbox: Sandbox, account: SandboxTestAccount, receiver: TestReceiver): Promise<Made> {
  const call = apiClient({ url: sandbox.url, apiKey: account.apiKey });
  const webhook = await data(call, 'POST', '/webhooks', { url: receiver.url, events: ['*'] });
  receiver.secret = webhook.secret;
  const customer = await data(call, 'POST', '/customers', { name: `Kunde von ${account.business.name}` });
  const invoice = { customer_id: customer.id, amount: 12_000, currency: 'EUR' };
  const toPay = await data(call, 'POST', '/invoices', invoice);
  const toCancel = await data(call, 'POST', '/invoices', invoice);
  const payment = await data(call, 'POST', '/transactions', { customer_id: customer.id, amount: 5_000, currency: 'EUR' });
  const toSettle = await data(call, 'POST', '/transactions', { customer_id: customer.id, amount: 700, currency: 'EUR', status: 'pending' });
  const toFail = await data(call, 'POST', '/transactions', { customer_id: customer.id, amount: 800, currency: 'EUR', status: 'pending' });
  const subscription = await data(call, 'POST', '/sandbox/subscriptions', { customer_id: customer.id, plan: 'starter' });
  const toConfirm = await data(call, 'POST', '/sandbox/uva', { period: '2026-01' });
  const toReject = await data(call, 'POST', '/sandbox/uva', { period: '2026-02' });
  await sandbox.settle();
  const delivery = (await data(call, 'GET', `/webhooks/${webhook.id}/deliveries`))[0];
  const event = (await data(call, 'GET', '/events'))[0];
  return {
    account,
    call,
    receiver,
    ids: {
      webhook: webhook.id,
      customer: customer.id,
      toPay: toPay.id,
      toCancel: toCancel.id,
      payment: payment.id,
      toSettle: toSettle.id,
      toFail: toFail.id,
      subscription: subscription.id,
      toConfirm: toConfirm.id,
      toReject: toReject.id,
      delivery: delivery.id,
      event: event.id,
    },
  };
}

/**
 * Every route that names a resource by id, in an order in which the owner's own call succeeds
 * each time (send before pay, cancel-able invoices, deletes last). `forbidden` is what the 403's
 * details must be exactly: the resource and the id the request named, `field` for an id in the body.
 */
interface RouteCase {
  name: string;
  method: string;
  path: (ids: Record<string, string>) => string;
  body?: (ids: Record<string, string>) => unknown;
  forbidden: (ids: Record<string, string>) => Record<string, string>;
  status: number;
}

const webhook = (ids: Record<string, string>) => ({ resource: 'webhook', id: ids.webhook! });
const customer = (ids: Record<string, string>) => ({ resource: 'customer', id: ids.customer! });
const ROUTES: RouteCase[] = [
  { name: 'GET webhook', method: 'GET', path: (ids) => `/webhooks/${ids.webhook}`, forbidden: webhook, status: 200 },
  { name: 'PATCH webhook', method: 'PATCH', path: (ids) => `/webhooks/${ids.webhook}`, body: () => ({ events: ['*'] }), forbidden: webhook, status: 200 },
  { name: 'list its deliveries', method: 'GET', path: (ids) => `/webhooks/${ids.webhook}/deliveries`, forbidden: webhook, status: 200 },
  { name: 'GET a delivery', method: 'GET', path: (ids) => `/webhooks/${ids.webhook}/deliveries/${ids.delivery}`, forbidden: webhook, status: 200 },
  { name: 'retry a delivery', method: 'POST', path: (ids) => `/webhooks/${ids.webhook}/deliveries/${ids.delivery}/retry`, forbidden: webhook, status: 200 },
  { name: 'send a test event', method: 'POST', path: (ids) => `/webhooks/${ids.webhook}/test`, forbidden: webhook, status: 200 },
  { name: 'GET its faults', method: 'GET', path: (ids) => `/sandbox/webhooks/${ids.webhook}/faults`, forbidden: webhook, status: 200 },
  { name: 'PUT its faults', method: 'PUT', path: (ids) => `/sandbox/webhooks/${ids.webhook}/faults`, body: () => ({}), forbidden: webhook, status: 200 },
  { name: 'GET customer', method: 'GET', path: (ids) => `/customers/${ids.customer}`, forbidden: customer, status: 200 },
  { name: "list a customer's invoices", method: 'GET', path: (ids) => `/customers/${ids.customer}/invoices`, forbidden: customer, status: 200 },
  { name: 'PATCH customer', method: 'PATCH', path: (ids) => `/customers/${ids.customer}`, body: () => ({ name: 'Neuer Name GmbH' }), forbidden: customer, status: 200 },
  {
    name: 'create an invoice for the customer',
    method: 'POST',
    path: () => '/invoices',
    body: (ids) => ({ customer_id: ids.customer, amount: 100, currency: 'EUR' }),
    forbidden: (ids) => ({ ...customer(ids), field: 'customer_id' }),
    status: 201,
  },
  { name: 'GET invoice', method: 'GET', path: (ids) => `/invoices/${ids.toPay}`, forbidden: (ids) => ({ resource: 'invoice', id: ids.toPay! }), status: 200 },
  { name: 'send invoice', method: 'POST', path: (ids) => `/invoices/${ids.toPay}/send`, forbidden: (ids) => ({ resource: 'invoice', id: ids.toPay! }), status: 200 },
  {
    name: 'pay invoice (a transaction for it)',
    method: 'POST',
    path: () => '/transactions',
    body: (ids) => ({ invoice_id: ids.toPay, amount: 12_000, currency: 'EUR' }),
    forbidden: (ids) => ({ resource: 'invoice', id: ids.toPay!, field: 'invoice_id' }),
    status: 201,
  },
  { name: 'cancel invoice', method: 'DELETE', path: (ids) => `/invoices/${ids.toCancel}`, forbidden: (ids) => ({ resource: 'invoice', id: ids.toCancel! }), status: 200 },
  {
    name: 'a payment from the customer',
    method: 'POST',
    path: () => '/transactions',
    body: (ids) => ({ customer_id: ids.customer, amount: 100, currency: 'EUR' }),
    forbidden: (ids) => ({ ...customer(ids), field: 'customer_id' }),
    status: 201,
  },
  { name: 'GET transaction', method: 'GET', path: (ids) => `/transactions/${ids.payment}`, forbidden: (ids) => ({ resource: 'transaction', id: ids.payment! }), status: 200 },
  { name: 'reverse transaction', method: 'POST', path: (ids) => `/transactions/${ids.payment}/reverse`, body: () => ({}), forbidden: (ids) => ({ resource: 'transaction', id: ids.payment! }), status: 200 },
  { name: 'settle a pending transaction', method: 'POST', path: (ids) => `/sandbox/transactions/${ids.toSettle}/succeed`, forbidden: (ids) => ({ resource: 'transaction', id: ids.toSettle! }), status: 200 },
  { name: 'fail a pending transaction', method: 'POST', path: (ids) => `/sandbox/transactions/${ids.toFail}/fail`, body: () => ({}), forbidden: (ids) => ({ resource: 'transaction', id: ids.toFail! }), status: 200 },
  {
    name: 'subscribe the customer',
    method: 'POST',
    path: () => '/sandbox/subscriptions',
    body: (ids) => ({ customer_id: ids.customer, plan: 'pro' }),
    forbidden: (ids) => ({ ...customer(ids), field: 'customer_id' }),
    status: 201,
  },
  { name: 'GET subscription', method: 'GET', path: (ids) => `/sandbox/subscriptions/${ids.subscription}`, forbidden: (ids) => ({ resource: 'subscription', id: ids.subscription! }), status: 200 },
  { name: 'PATCH subscription', method: 'PATCH', path: (ids) => `/sandbox/subscriptions/${ids.subscription}`, body: () => ({ plan: 'business' }), forbidden: (ids) => ({ resource: 'subscription', id: ids.subscription! }), status: 200 },
  { name: 'cancel subscription', method: 'DELETE', path: (ids) => `/sandbox/subscriptions/${ids.subscription}`, forbidden: (ids) => ({ resource: 'subscription', id: ids.subscription! }), status: 200 },
  { name: 'GET VAT return', method: 'GET', path: (ids) => `/sandbox/uva/${ids.toConfirm}`, forbidden: (ids) => ({ resource: 'uva', id: ids.toConfirm! }), status: 200 },
  { name: 'submit VAT return', method: 'POST', path: (ids) => `/sandbox/uva/${ids.toConfirm}/submit`, forbidden: (ids) => ({ resource: 'uva', id: ids.toConfirm! }), status: 200 },
  { name: 'confirm VAT return', method: 'POST', path: (ids) => `/sandbox/uva/${ids.toConfirm}/confirm`, forbidden: (ids) => ({ resource: 'uva', id: ids.toConfirm! }), status: 200 },
  { name: 'submit the other VAT return', method: 'POST', path: (ids) => `/sandbox/uva/${ids.toReject}/submit`, forbidden: (ids) => ({ resource: 'uva', id: ids.toReject! }), status: 200 },
  { name: 'reject VAT return', method: 'POST', path: (ids) => `/sandbox/uva/${ids.toReject}/reject`, body: () => ({}), forbidden: (ids) => ({ resource: 'uva', id: ids.toReject! }), status: 200 },
  { name: 'GET event', method: 'GET', path: (ids) => `/events/${ids.event}`, forbidden: (ids) => ({ resource: 'event', id: ids.event! }), status: 200 },
  { name: 'rotate the secret', method: 'POST', path: (ids) => `/webhooks/${ids.webhook}/rotate-secret`, body: () => ({}), forbidden: webhook, status: 200 },
  { name: 'archive customer', method: 'DELETE', path: (ids) => `/customers/${ids.customer}`, forbidden: customer, status: 200 },
  { name: 'DELETE webhook', method: 'DELETE', path: (ids) => `/webhooks/${ids.webhook}`, forbidden: webhook, status: 204 },
];

describe(`a sandbox with ${ACCOUNTS} accounts`, () => {
  let sandbox: Sandbox;
  let made: Made[];

  beforeAll(async () => {
    sandbox = await createSandbox({ seed: 21, accounts: ACCOUNTS });
    const receivers = await Promise.all(sandbox.accounts.map(() => new TestReceiver().start()));
    made = [];
    for (const [index, account] of sandbox.accounts.entries()) made.push(await makeEverything(sandbox, account, receivers[index]!));
  });
  afterAll(async () => {
    await sandbox?.close();
    for (const each of made ?? []) await each.receiver.close();
  });

  it('has one key and business an account, the first the one-account sandbox’s; /v1/me shows the key’s', async () => {
    expect(sandbox.accounts).toHaveLength(ACCOUNTS);
    expect(sandbox.accounts[0]!.apiKey).toBe(sandbox.apiKey);
    expect(sandbox.accounts[0]!.business).toMatchObject({ name: 'Sandbox Handels GmbH', uid_number: 'ATU12345675' });
    expect(new Set(sandbox.accounts.map((account) => account.apiKey)).size).toBe(ACCOUNTS);
    expect(new Set(sandbox.accounts.map((account) => account.business.id)).size).toBe(ACCOUNTS);
    for (const { account, call } of made) {
      expect(account.apiKey).toMatch(/^sk_test_\w{8,}$/);
      expect((await data(call, 'GET', '/me')).business).toEqual(account.business);
    }
  });

  it('sends each account’s events to its own webhook only, each with the account’s business_id', () => {
    for (const { account, receiver } of made) {
      expect(receiver.seen.length).toBeGreaterThan(0);
      expect(new Set(receiver.seen.map(({ event }) => event.business_id))).toEqual(new Set([account.business.id]));
    }
    const seenIds = made.map(({ receiver }) => new Set(receiver.seen.map(({ event }) => event.id)));
    for (const [a, ids] of seenIds.entries()) for (const [b, others] of seenIds.entries()) if (a !== b) expect([...ids].filter((id) => others.has(id))).toEqual([]);
  });

  it('lists only the key’s own account’s resources', async () => {
    const lists: [string, (ids: Record<string, string>) => string[]][] = [
      ['/webhooks', (ids) => [ids.webhook!]],
      ['/customers', (ids) => [ids.customer!]],
      ['/invoices', (ids) => [ids.toPay!, ids.toCancel!]],
      ['/transactions', (ids) => [ids.payment!, ids.toSettle!, ids.toFail!]],
      ['/sandbox/subscriptions', (ids) => [ids.subscription!]],
      ['/sandbox/uva', (ids) => [ids.toConfirm!, ids.toReject!]],
    ];
    for (const [path, own] of lists) {
      for (const { call, ids } of made) {
        const listed = ((await data(call, 'GET', `${path}?per_page=100`)) as { id: string }[]).map((item) => item.id);
        expect(listed.sort(), `${path} of ${ids.customer}`).toEqual(own(ids).sort());
      }
    }
    for (const { call, account, ids } of made) {
      const events = (await data(call, 'GET', '/events?per_page=100')) as { id: string; business_id: string }[];
      expect(events.length).toBeGreaterThan(0);
      expect(new Set(events.map((event) => event.business_id))).toEqual(new Set([account.business.id]));
      const faults = (await data(call, 'GET', '/sandbox/faults')) as { webhooks: { webhook_id: string }[] };
      expect(faults.webhooks.map((entry) => entry.webhook_id)).toEqual([ids.webhook]);
    }
  });

  it('walks every route of the API that names a resource by id', () => {
    const source = readdirSync('src/sandbox/resources').map((file) => readFileSync(join('src/sandbox/resources', file), 'utf8')).join('\n');
    const withIds = [...source.matchAll(/method: '(\w+)',\s*path: '([^']*:[^']*)'/g)].map(([, method, path]) => `${method} ${path}`);
    // The body's references: an id of another account's object in a create.
    const byBody = ['POST /v1/invoices', 'POST /v1/transactions', 'POST /v1/sandbox/subscriptions'];
    const walked = ROUTES.map((route) => {
      const ids = made[0]!.ids;
      const path = Object.entries(ids).reduce((text, [kind, id]) => text.replace(id, kind === 'delivery' ? ':delivery' : ':id'), route.path(ids));
      return `${route.method} /v1${path}`;
    });
    expect(new Set(walked)).toEqual(new Set([...withIds, ...byBody]));
  });

  it('answers a delivery of another account’s webhook under the own webhook 403 FORBIDDEN on the delivery', async () => {
    const [first, second] = made as [Made, Made];
    const answer = await second.call('GET', `/webhooks/${second.ids.webhook}/deliveries/${first.ids.delivery}`);
    expect(answer).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN', details: { resource: 'delivery', id: first.ids.delivery } } } });
  });

  it('answers every route with another account’s id 403 FORBIDDEN (the envelope, nothing of the other account) and with the own key as usual', async () => {
    for (const route of ROUTES) {
      for (const owner of made) {
        for (const other of made) {
          if (other === owner) continue;
          const answer = await other.call(route.method, route.path(owner.ids), route.body?.(owner.ids));
          expect({ route: route.name, status: answer.status }).toEqual({ route: route.name, status: 403 });
          expect(answer.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String), details: route.forbidden(owner.ids) } });
          for (const secret of [owner.account.business.id, owner.account.business.name, owner.account.apiKey]) expect(JSON.stringify(answer.body)).not.toContain(secret);
        }
        const own = await owner.call(route.method, route.path(owner.ids), route.body?.(owner.ids));
        expect({ route: route.name, status: own.status, body: own.status >= 300 ? own.body : null }).toEqual({ route: route.name, status: route.status, body: null });
      }
    }
  });

  it('still answers 404 NOT_FOUND for an id that names nothing, whoever asks', async () => {
    const answer = await made[1]!.call('GET', '/customers/cus_0000nothing');
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND', details: { resource: 'customer', id: 'cus_0000nothing' } } } });
  });
});

describe('accounts, reproducibly', () => {
  it('are the same keys and businesses from the same seed; the first is the one-account sandbox’s', async () => {
    const one = await createSandbox({ seed: 5 });
    const first = await createSandbox({ seed: 5, accounts: 3 });
    const second = await createSandbox({ seed: 5, accounts: 3 });
    try {
      expect(first.accounts).toEqual(second.accounts);
      expect(first.accounts[0]).toEqual(one.accounts[0]);
      expect(one.accounts).toHaveLength(1);
      expect(first.accounts.map((account) => account.business.uid_number)).toEqual(['ATU12345675', austrianUid(1_234_568), austrianUid(1_234_569)]);
    } finally {
      await Promise.all([one.close(), first.close(), second.close()]);
    }
  });

  it('an account’s ids do not depend on what the others do', async () => {
    const quiet = await createSandbox({ seed: 6, accounts: 2 });
    const busy = await createSandbox({ seed: 6, accounts: 2 });
    try {
      const busyFirst = apiClient(busy);
      for (let n = 0; n < 3; n += 1) await busyFirst('POST', '/customers', { name: `Lärm ${n}` });
      const made = await Promise.all(
        [quiet, busy].map(async (sandbox) => (await apiClient({ url: sandbox.url, apiKey: sandbox.accounts[1]!.apiKey })('POST', '/customers', { name: 'Huber' })).body.data.id as string),
      );
      expect(made[1]).toBe(made[0]);
    } finally {
      await Promise.all([quiet.close(), busy.close()]);
    }
  });

  it('keeps every account’s key and business in a --db file, and the data of each', async () => {
    const directory = temporaryDirectory('acct-sandbox-accounts');
    const database = join(directory.path, 'sandbox.db');
    try {
      const before = await createSandbox({ database, accounts: 2 });
      const customer = (await apiClient({ url: before.url, apiKey: before.accounts[1]!.apiKey })('POST', '/customers', { name: 'Huber' })).body.data.id as string;
      const accounts = before.accounts;
      await before.close();
      const after = await createSandbox({ database, accounts: 2 });
      try {
        expect(after.accounts).toEqual(accounts);
        expect((await apiClient({ url: after.url, apiKey: after.accounts[1]!.apiKey })('GET', `/customers/${customer}`)).status).toBe(200);
        expect((await apiClient(after)('GET', `/customers/${customer}`)).status).toBe(403);
      } finally {
        await after.close();
      }
    } finally {
      directory.remove();
    }
  });

  it.each([[0], [11], [1.5], ['2'], [null]])('refuses accounts: %j with INVALID_CONFIGURATION on accounts', async (accounts) => {
    await expect(createSandbox({ accounts: accounts as never })).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'accounts' } });
  });
});
