import { describe, expect, it } from 'vitest';
import { DispatcherError, NotFoundError, type WebhookRegistration } from '../../src/dispatcher.js';
import type { EventPattern } from '../../src/events/catalog.js';
import { SECRET_PREFIX, verifySignature } from '../../src/signing/signature.js';
import { createTestEvent } from '../../src/testing/index.js';
import { withServer } from '../helpers/server.js';
import { clockedDispatcher, MINUTE, Receiver, testDispatcher } from './fixtures.js';

const URL_ = 'http://127.0.0.1:9/hook';

async function failure(promise: Promise<unknown>): Promise<DispatcherError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DispatcherError) return error;
    throw error;
  }
  throw new Error('expected a DispatcherError');
}

describe('webhooks.create', () => {
  it('returns the registration with a wh_ id, status active, created_at from the clock and a whsec_ secret', async () => {
    const { dispatcher, clock } = clockedDispatcher();
    const webhook = await dispatcher.webhooks.create({ business_id: 'biz_1', url: URL_, events: ['invoice.paid', 'customer.*'] });
    expect(webhook).toEqual({
      id: expect.stringMatching(/^wh_[\w-]{22}$/) as string,
      business_id: 'biz_1',
      scope: 'business',
      url: URL_,
      events: ['invoice.paid', 'customer.*'],
      headers: {},
      status: 'active',
      disabled_reason: null,
      disabled_at: null,
      failure_streak: 0,
      failing_since: null,
      last_failure_at: null,
      rate_limit: null,
      scheme: 'svc',
      algorithm: 'hmac-sha256',
      public_key: null,
      previous_secret_expires_at: null,
      in_flight: 0,
      skipped_events: 0,
      created_at: new Date(clock.now()).toISOString(),
      updated_at: new Date(clock.now()).toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) as string,
    });
    // 32 random bytes behind the prefix, in standard base64: what Standard Webhooks' libraries decode.
    expect(Buffer.from(webhook.secret.slice(SECRET_PREFIX.length), 'base64')).toHaveLength(32);
  });

  it('issues a different secret every time', async () => {
    const dispatcher = testDispatcher();
    const secrets = new Set<string>();
    for (let i = 0; i < 20; i++) secrets.add((await dispatcher.webhooks.create({ url: URL_, events: ['*'] })).secret);
    expect(secrets.size).toBe(20);
  });

  it('never shows the secret in list or get', async () => {
    const dispatcher = testDispatcher();
    const { secret, ...registration } = await dispatcher.webhooks.create({ url: URL_, events: ['*'] });
    expect(await dispatcher.webhooks.get(registration.id)).toEqual(registration);
    expect(await dispatcher.webhooks.list()).toEqual([registration]);
    expect(JSON.stringify(await dispatcher.webhooks.list())).not.toContain(secret);
  });

  it.each<[unknown, string, Record<string, unknown>]>([
    [[], 'VALIDATION_ERROR', { field: 'events' }],
    ['invoice.paid', 'VALIDATION_ERROR', { field: 'events' }],
    [undefined, 'VALIDATION_ERROR', { field: 'events' }],
    [['invoice.payed'], 'UNKNOWN_EVENT_TYPE', { field: 'events', value: 'invoice.payed' }],
    [['invoice.paid', 'refund.*'], 'UNKNOWN_EVENT_TYPE', { field: 'events', value: 'refund.*' }],
    [['invoice.*.*'], 'UNKNOWN_EVENT_TYPE', { field: 'events', value: 'invoice.*.*' }],
    [[42], 'UNKNOWN_EVENT_TYPE', { field: 'events', value: 42 }],
  ])('refuses events %j with %s', async (events, code, details) => {
    const dispatcher = testDispatcher();
    const error = await failure(dispatcher.webhooks.create({ url: URL_, events: events as EventPattern[] }));
    expect(error.code).toBe(code);
    expect(error.details).toMatchObject(details);
  });

  it('keeps patterns as given and drops duplicates', async () => {
    const dispatcher = testDispatcher();
    const webhook = await dispatcher.webhooks.create({ url: URL_, events: ['*', 'invoice.*', 'invoice.*'] });
    expect(webhook.events).toEqual(['*', 'invoice.*']);
  });

  it.each([
    ['x-svc-signature'],
    ['X-Svc-Timestamp'],
    ['x-svc-anything'],
    ['x-service-signature'],
    ['Content-Type'],
    ['content-length'],
    ['host'],
    ['user-agent'],
    ['transfer-encoding'],
    ['connection'],
    ['content-encoding'],
  ])('refuses the reserved custom header %s', async (name) => {
    const dispatcher = testDispatcher();
    const error = await failure(dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: { [name]: 'x' } }));
    expect(error.code).toBe('FORBIDDEN_HEADER');
    expect(error.details).toMatchObject({ field: 'headers', header: name.toLowerCase() });
  });

  it.each<[string, string, unknown]>([
    ['a name with a space', 'bad header', 'x'],
    ['a value with CR LF', 'x-ok', 'line\r\nx-injected: 1'],
    ['a value with NUL', 'x-ok', 'nul\u0000'],
    ['a value that is a number', 'x-ok', 42],
    ['a value of 9000 characters', 'x-ok', 'v'.repeat(9000)],
  ])('refuses an invalid custom header: %s', async (_case, name, value) => {
    const dispatcher = testDispatcher();
    const error = await failure(dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: { [name]: value as string } }));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toMatchObject({ field: 'headers' });
    if (typeof value === 'string') expect(error.message).not.toContain(value); // values may be credentials
  });

  it('refuses headers given twice in different case, and more than 20', async () => {
    const dispatcher = testDispatcher();
    expect((await failure(dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: { 'X-Key': 'a', 'x-key': 'b' } }))).code).toBe(
      'VALIDATION_ERROR',
    );
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, 'v']));
    expect((await failure(dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: many }))).code).toBe('VALIDATION_ERROR');
  });

  it('refuses input that is not an object', async () => {
    const dispatcher = testDispatcher();
    expect((await failure(dispatcher.webhooks.create(null as never))).code).toBe('VALIDATION_ERROR');
  });
});

describe('webhooks.update / delete / get', () => {
  it('changes only what is given, checks it like create, and moves updated_at', async () => {
    const { dispatcher, clock } = clockedDispatcher();
    const created = await dispatcher.webhooks.create({ url: URL_, events: ['*'], headers: { 'x-a': '1' } });
    clock.advance(MINUTE);
    const updated = await dispatcher.webhooks.update(created.id, { events: ['payment.*'], status: 'disabled' });
    expect(updated).toMatchObject<Partial<WebhookRegistration>>({
      url: URL_,
      events: ['payment.*'],
      headers: { 'x-a': '1' },
      status: 'disabled',
      created_at: created.created_at,
      updated_at: new Date(clock.now()).toISOString(),
    });
    expect(await dispatcher.webhooks.update(created.id, { headers: {} })).toMatchObject({ headers: {} });
    expect((await failure(dispatcher.webhooks.update(created.id, { status: 'paused' as never }))).details).toMatchObject({ field: 'status' });
    expect((await failure(dispatcher.webhooks.update(created.id, { events: ['nope'] as never }))).code).toBe('UNKNOWN_EVENT_TYPE');
  });

  it('answers NOT_FOUND for an unknown or deleted webhook', async () => {
    const dispatcher = testDispatcher();
    const { id } = await dispatcher.webhooks.create({ url: URL_, events: ['*'] });
    await dispatcher.webhooks.delete(id);
    for (const operation of [
      () => dispatcher.webhooks.get(id),
      () => dispatcher.webhooks.update(id, { status: 'active' }),
      () => dispatcher.webhooks.delete(id),
      () => dispatcher.webhooks.rotateSecret(id),
      () => dispatcher.sendTest(id),
      () => dispatcher.webhooks.get('wh_unknown'),
    ]) {
      const error = await failure(operation());
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.code).toBe('NOT_FOUND');
    }
    expect(await dispatcher.webhooks.list()).toEqual([]);
  });

  it('delete keeps the log and ends pending deliveries as finally_failed', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const { id } = await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue();
      await dispatcher.webhooks.delete(id);
      clock.advance(MINUTE);
      expect(await dispatcher.runDue()).toBe(0);
      const [delivery] = await dispatcher.deliveries.list({ webhook_id: id });
      const detail = await dispatcher.deliveries.get(delivery!.id);
      expect(detail).toMatchObject({ status: 'finally_failed', next_attempt_at: null });
      expect(detail.attempts).toHaveLength(1);
    });
  });

  it('a disabled webhook gets no new deliveries and its pending ones wait until it is active again', async () => {
    const receiver = new Receiver(() => 204);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const { id } = await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.created'));
      await dispatcher.webhooks.update(id, { status: 'disabled' });
      await dispatcher.emit(createTestEvent('invoice.sent'));
      expect(await dispatcher.runDue()).toBe(0);
      expect(await dispatcher.deliveries.list()).toHaveLength(1);
      clock.advance(MINUTE);
      await dispatcher.webhooks.update(id, { status: 'active' });
      expect(await dispatcher.runDue()).toBe(1);
      expect(receiver.eventIds()).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({ type: 'invoice.created' });
    });
  });
});

describe('webhooks.rotateSecret', () => {
  it('returns a new secret; attempts after it verify only with the new secret, retries of older events included', async () => {
    const receiver = new Receiver(() => 500);
    await withServer(receiver.listener, async (url) => {
      const { dispatcher, clock } = clockedDispatcher();
      const { id, secret: oldSecret } = await dispatcher.webhooks.create({ url, events: ['*'] });
      await dispatcher.emit(createTestEvent('invoice.paid'));
      await dispatcher.runDue(); // signed with the old secret

      const newSecret = await dispatcher.webhooks.rotateSecret(id);
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(newSecret).not.toBe(oldSecret);
      clock.advance(MINUTE);
      await dispatcher.emit(createTestEvent('invoice.created'));
      await dispatcher.runDue(); // the retry of the first event and the new event

      const verify = (index: number, secret: string) => {
        const request = receiver.requests[index]!;
        return () =>
          verifySignature({
            payload: request.body,
            signature: request.headers['x-svc-signature'],
            timestamp: request.headers['x-svc-timestamp'],
            secret,
            now: clock.now(),
          });
      };
      expect(receiver.requests).toHaveLength(3);
      expect(verify(0, oldSecret)).not.toThrow();
      for (const index of [1, 2]) {
        expect(verify(index, newSecret)).not.toThrow();
        expect(verify(index, oldSecret)).toThrow(expect.objectContaining({ code: 'SIGNATURE_MISMATCH' }));
      }
    });
  });
});
