import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore, signStandardWebhook, Webhooks, type WebhookHandlerOptions, type WebhookSecretRequest } from '../../src/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { adapters, post } from '../helpers/adapters.js';
import { withServer } from '../helpers/server.js';

/*
 * A partner app on every adapter: one route, the secret of each delivery chosen by a function
 * from the business id its body names, read from a real SQLite table. Each business's delivery
 * is accepted, one signed with the other business's secret is refused, an unknown business is
 * 401 UNKNOWN_BUSINESS and a lookup that fails is 503 SECRET_UNAVAILABLE.
 */

const SECRETS = {
  biz_alpine: `whsec_${Buffer.alloc(32, 3).toString('base64')}`,
  biz_danube: `whsec_${Buffer.alloc(32, 5).toString('base64')}`,
} as const;

const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-partner-'));
const db = new Database(join(dir, 'partner.db'));
db.exec('CREATE TABLE webhook_secrets (business_id TEXT PRIMARY KEY, secret TEXT NOT NULL)');
const insert = db.prepare('INSERT INTO webhook_secrets (business_id, secret) VALUES (?, ?)');
for (const [business, secret] of Object.entries(SECRETS)) insert.run(business, secret);
const select = db.prepare<[string], { secret: string }>('SELECT secret FROM webhook_secrets WHERE business_id = ?');

afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The secret of a business from the table, or undefined for one it does not have. */
const secretOf = (businessId: string | undefined): string | undefined => (businessId === undefined ? undefined : select.get(businessId)?.secret);

function delivery(business: string, signedWith: string) {
  return signedRequest(createTestEvent('invoice.paid', { business_id: business }), signedWith);
}

function errorCode(response: { body: Record<string, unknown> }): unknown {
  return (response.body.error as { code?: unknown } | undefined)?.code;
}

describe.each(adapters)('$name as a partner app', (adapter) => {
  function serve(secret: WebhookHandlerOptions['secret'], extra: Partial<WebhookHandlerOptions> = {}) {
    const handled: string[] = [];
    const hooks = new Webhooks().onAny((event) => void handled.push(event.business_id));
    return { ...adapter.serve({ secret, handlers: hooks, store: memoryStore(), logger: false, ...extra }), handled };
  }

  it("accepts each business's delivery under its own secret, told the path, the headers and the business id", async () => {
    const seen: WebhookSecretRequest[] = [];
    const { listener, handled } = serve((request) => {
      seen.push(request);
      return secretOf(request.businessId);
    });
    await withServer(listener, async (url) => {
      for (const business of ['biz_alpine', 'biz_danube'] as const) {
        const { body, headers } = delivery(business, SECRETS[business]);
        const response = await post(url, body, { ...headers, 'X-Partner-Trace': business });
        expect(response.status).toBe(200);
      }
    });
    expect(handled).toEqual(['biz_alpine', 'biz_danube']);
    expect(seen.map(({ path, businessId }) => ({ path, businessId }))).toEqual([
      { path: '/webhooks', businessId: 'biz_alpine' },
      { path: '/webhooks', businessId: 'biz_danube' },
    ]);
    expect(seen[1]!.headers).toMatchObject({ 'content-type': 'application/json', 'x-partner-trace': 'biz_danube' });
  });

  it("refuses 401 a delivery that names one business but is signed with the other's secret", async () => {
    const { listener, handled } = serve(({ businessId }) => secretOf(businessId));
    const { body, headers } = delivery('biz_alpine', SECRETS.biz_danube);
    await withServer(listener, async (url) => {
      const response = await post(url, body, headers);
      expect(response.status).toBe(401);
      expect(errorCode(response)).toBe('SIGNATURE_MISMATCH');
    });
    expect(handled).toEqual([]);
  });

  it('answers 401 UNKNOWN_BUSINESS, in the error envelope, when the function knows no secret for the business', async () => {
    const { listener, handled } = serve(({ businessId }) => secretOf(businessId));
    const { body, headers } = delivery('biz_unknown', SECRETS.biz_alpine);
    await withServer(listener, async (url) => {
      const response = await post(url, body, headers);
      expect(response.status).toBe(401);
      expect(response.body.error).toEqual({ code: 'UNKNOWN_BUSINESS', message: expect.any(String), details: { business_id: 'biz_unknown' } });
    });
    expect(handled).toEqual([]);
  });

  it('answers 503 SECRET_UNAVAILABLE when the lookup throws, and accepts the retry once it answers', async () => {
    let down = true;
    const { listener, handled } = serve(({ businessId }) => {
      if (down) throw new Error('secrets database unreachable');
      return secretOf(businessId);
    });
    const { body, headers } = delivery('biz_danube', SECRETS.biz_danube);
    await withServer(listener, async (url) => {
      const failed = await post(url, body, headers);
      expect(failed.status).toBe(503);
      expect(errorCode(failed)).toBe('SECRET_UNAVAILABLE');
      expect(JSON.stringify(failed.body)).not.toContain('unreachable');
      down = false;
      expect((await post(url, body, headers)).status).toBe(200);
    });
    expect(handled).toEqual(['biz_danube']);
  });

  it('takes an async lookup, and Standard Webhooks deliveries with scheme: any', async () => {
    const { listener, handled } = serve(({ businessId }) => Promise.resolve(secretOf(businessId)), { scheme: 'any' });
    const svc = delivery('biz_alpine', SECRETS.biz_alpine);
    const event = createTestEvent('customer.created', { business_id: 'biz_danube' });
    const body = JSON.stringify(event);
    const standard = signStandardWebhook({ id: event.id, payload: body, secret: SECRETS.biz_danube });
    await withServer(listener, async (url) => {
      expect((await post(url, svc.body, svc.headers)).status).toBe(200);
      expect((await post(url, body, { 'content-type': 'application/json', ...standard.headers })).status).toBe(200);
      const forged = signStandardWebhook({ id: event.id, payload: body, secret: SECRETS.biz_alpine });
      const refused = await post(url, body, { 'content-type': 'application/json', ...forged.headers });
      expect(refused.status).toBe(401);
      expect(errorCode(refused)).toBe('SIGNATURE_MISMATCH');
    });
    expect(handled).toEqual(['biz_alpine', 'biz_danube']);
  });
});
