import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Inject, Injectable, Module, Scope, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStore, Webhooks, type IdempotencyStore, type Receiver, type ReceiveOutcome, type WebhookEvent } from '../../src/index.js';
import { AcctWebhookModule, OnWebhook, WEBHOOK_RECEIVER } from '../../src/adapters/nestjs/index.js';
import { createTestEvent, signedRequest } from '../../src/testing/index.js';
import { nestAppModule, post } from '../helpers/adapters.js';

/*
 * What only the NestJS module has (test/adapters/adapters.test.ts runs the shared contract on both
 * platforms): handlers as `@OnWebhook` methods of providers with their dependencies injected, the
 * options from a factory, the receiver as an injectable token, the module's life cycle, and Nest's
 * own body parsing left as it is.
 */
const SECRET = 'whsec_nestjsModuleSecret000000000000';

/** A dependency the handlers get injected: what they did, by event id. */
@Injectable()
class Ledger {
  readonly entries: string[] = [];
  record(entry: string): void {
    this.entries.push(entry);
  }
}

@Injectable()
class Billing {
  constructor(private readonly ledger: Ledger) {}

  @OnWebhook('invoice.paid')
  paid(event: WebhookEvent<'invoice.paid'>) {
    this.ledger.record(`paid ${event.data.object.id}`);
    return event.data.object.amount;
  }

  @OnWebhook('invoice.*')
  anyInvoice(event: WebhookEvent<'invoice.paid' | 'invoice.created' | 'invoice.sent' | 'invoice.overdue' | 'invoice.cancelled'>) {
    this.ledger.record(`invoice ${event.type}`);
  }

  @OnWebhook(['payment.failed', 'payment.refunded'])
  @OnWebhook('customer.deleted')
  several(event: WebhookEvent<'payment.failed' | 'payment.refunded' | 'customer.deleted'>) {
    this.ledger.record(`several ${event.type}`);
  }
}

@Injectable()
class Audit {
  constructor(private readonly ledger: Ledger) {}

  @OnWebhook('*')
  all(event: WebhookEvent) {
    this.ledger.record(`audit ${event.type}`);
  }
}

const apps: INestApplication[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

type Platform = 'express' | 'fastify';

async function start(platform: Platform, webhooks: DynamicModule, providers: unknown[], options: { rawBody?: boolean; adapter?: ExpressAdapter } = {}) {
  const adapter = options.adapter ?? (platform === 'express' ? new ExpressAdapter() : new FastifyAdapter());
  const app = await NestFactory.create(nestAppModule(webhooks, providers), adapter, { logger: false, abortOnError: false, rawBody: options.rawBody ?? false });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  const address = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${address.port}` };
}

describe.each(['express', 'fastify'] as const)('AcctWebhookModule on %s', (platform) => {
  it('runs @OnWebhook methods of providers with their injected dependencies: one type, a group, a list, several decorators, and *', async () => {
    const { app, url } = await start(platform, AcctWebhookModule.forRoot({ secret: SECRET, store: memoryStore(), logger: false }), [Ledger, Billing, Audit]);
    const paid = createTestEvent('invoice.paid');
    for (const event of [paid, createTestEvent('payment.refunded'), createTestEvent('customer.deleted'), createTestEvent('uva.submitted')]) {
      const { body, headers } = signedRequest(event, SECRET);
      expect((await post(url, body, headers)).status).toBe(200);
    }
    const { body, headers } = signedRequest(paid, SECRET);
    expect((await post(url, body, headers)).body).toMatchObject({ duplicate: true });
    expect(app.get(Ledger).entries.sort()).toEqual(
      [
        `paid ${paid.data.object.id}`,
        'invoice invoice.paid',
        'audit invoice.paid',
        'several payment.refunded',
        'audit payment.refunded',
        'several customer.deleted',
        'audit customer.deleted',
        'audit uva.submitted',
      ].sort(),
    );
  });

  it("announces its route in Nest's start-up log, as Nest's router announces the controllers' routes, and serves it", async () => {
    const lines: [context: string, message: string][] = [];
    const logger = {
      log: (message: string, context: string) => void lines.push([context, message]),
      error: () => undefined,
      warn: () => undefined,
    };
    const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
    const app = await NestFactory.create(nestAppModule(AcctWebhookModule.forRoot({ path: '/hooks', secret: SECRET, store: memoryStore(), logger: false }), [Ledger, Billing]), adapter, { logger, abortOnError: false });
    apps.push(app);
    await app.listen(0, '127.0.0.1');
    const mapped = lines.filter(([, message]) => message.startsWith('Mapped {'));
    expect(mapped).toContainEqual(['RouterExplorer', expect.stringMatching(/^Mapped \{\/\S+, POST\} route$/)]);
    expect(mapped).toContainEqual(['AcctWebhookModule', `Mapped {/hooks, POST} route on the ${platform === 'express' ? 'Express' : 'Fastify'} instance, below Nest's router`]);
    const address = (app.getHttpServer() as Server).address() as AddressInfo;
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    expect((await fetch(`http://127.0.0.1:${address.port}/hooks`, { method: 'POST', body, headers })).status).toBe(200);
  });

  it('verifies beside the app\'s JSON parser also with rawBody: true, which is neither needed nor harmful', async () => {
    const { app, url } = await start(platform, AcctWebhookModule.forRoot({ secret: SECRET, store: memoryStore(), logger: false }), [Ledger, Billing], { rawBody: true });
    const echoed = await fetch(`${url}/app/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"order":42}' });
    expect(await echoed.json()).toEqual({ parsed: { order: 42 } });
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    expect((await post(url, body, headers)).status).toBe(200);
    expect((await post(url, body.replace('"invoice.paid"', '"invoice.paid" '), headers)).status).toBe(401);
    expect(app.get(Ledger).entries).toContain(`paid ${event.data.object.id}`);
  });

  it('takes its options from a factory with injected providers (forRootAsync), and checks them when the app is created', async () => {
    const SETTINGS = 'settings';
    @Module({ providers: [{ provide: SETTINGS, useValue: { secret: SECRET, path: '/hooks/platform' } }], exports: [SETTINGS] })
    class SettingsModule {}
    const webhooks = AcctWebhookModule.forRootAsync({
      imports: [SettingsModule],
      inject: [SETTINGS],
      useFactory: (settings: { secret: string; path: string }) => Promise.resolve({ ...settings, store: memoryStore(), logger: false as const }),
    });
    const { app, url } = await start(platform, webhooks, [Ledger, Billing]);
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    const response = await fetch(`${url}/hooks/platform`, { method: 'POST', body, headers });
    expect(response.status).toBe(200);
    expect(app.get(Ledger).entries).toContain(`paid ${event.data.object.id}`);

    const refused = AcctWebhookModule.forRootAsync({ useFactory: () => ({ secret: SECRET, colour: 'blue' }) as never });
    const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
    await expect(NestFactory.create(nestAppModule(refused), adapter, { logger: false, abortOnError: false })).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'colour' } });
  });

  it('gives the receiver to any provider (WEBHOOK_RECEIVER) and closes it when the app closes', async () => {
    @Injectable()
    class Operations {
      constructor(@Inject(WEBHOOK_RECEIVER) readonly receiver: Receiver) {}
    }
    const dir = mkdtempSync(join(tmpdir(), 'acct-webhook-nest-'));
    try {
      const { app, url } = await start(platform, AcctWebhookModule.forRoot({ secret: SECRET, database: join(dir, 'events.db'), inbox: { pollIntervalMs: 5 }, logger: false }), [Ledger, Billing, Operations]);
      const { receiver } = app.get(Operations);
      expect(receiver).toBe(app.get(WEBHOOK_RECEIVER));
      const event = createTestEvent('invoice.paid');
      const { body, headers } = signedRequest(event, SECRET);
      expect((await post(url, body, headers)).body).toMatchObject({ queued: true });
      await receiver.inbox.drain();
      expect(await receiver.inbox.get(event.id)).toMatchObject({ status: 'done' });
      expect(app.get(Ledger).entries).toContain(`paid ${event.data.object.id}`);
      await app.close();
      apps.splice(apps.indexOf(app), 1);
      // The receiver opened the SQLite file itself, so closing it closed the store.
      await expect(receiver.inbox.list()).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs an event a previous process left in the inbox only once the handlers are found', async () => {
    const store: IdempotencyStore = memoryStore();
    const event = createTestEvent('invoice.paid');
    const now = Date.now();
    await store.inbox!.enqueue({ eventId: event.id, eventType: event.type, created: now, rawBody: Buffer.from(JSON.stringify(event)), headers: {}, verified: { secretIndex: 0, signatureScheme: 'v1' }, receivedAt: now, version: null });
    const { app } = await start(platform, AcctWebhookModule.forRoot({ secret: SECRET, store, inbox: { pollIntervalMs: 5 }, logger: false }), [Ledger, Billing]);
    await app.get<Receiver>(WEBHOOK_RECEIVER).inbox.drain();
    // Without its handlers, the worker would have marked it done with nothing run.
    expect(app.get(Ledger).entries.sort()).toEqual([`paid ${event.data.object.id}`, 'invoice invoice.paid'].sort());
    expect(await app.get<Receiver>(WEBHOOK_RECEIVER).inbox.get(event.id)).toMatchObject({ status: 'done' });
  });

  it('adds the @OnWebhook methods to the Webhooks given as handlers, which keep their own', async () => {
    const seen: string[] = [];
    const handlers = new Webhooks().on('invoice.paid', (event) => void seen.push(event.id));
    const { app, url } = await start(platform, AcctWebhookModule.forRoot({ secret: SECRET, handlers, store: memoryStore(), logger: false }), [Ledger, Billing]);
    const event = createTestEvent('invoice.paid');
    const { body, headers } = signedRequest(event, SECRET);
    expect((await post(url, body, headers)).status).toBe(200);
    expect(seen).toEqual([event.id]);
    expect(app.get(Ledger).entries).toContain(`paid ${event.data.object.id}`);
  });

  it('refuses an @OnWebhook method on a request-scoped provider when the app initialises', async () => {
    @Injectable({ scope: Scope.REQUEST })
    class PerRequest {
      @OnWebhook('invoice.paid')
      paid() {}
    }
    const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
    const app = await NestFactory.create(nestAppModule(AcctWebhookModule.forRoot({ secret: SECRET, store: memoryStore(), logger: false }), [PerRequest]), adapter, { logger: false, abortOnError: false });
    apps.push(app);
    await expect(app.init()).rejects.toMatchObject({ code: 'INVALID_CONFIGURATION', details: { option: 'OnWebhook' } });
  });
});

describe('AcctWebhookModule', () => {
  it('refuses unknown options in forRoot, and an unknown event type in @OnWebhook, before any app exists', () => {
    expect(() => AcctWebhookModule.forRoot({ secret: SECRET, colour: 'blue' } as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'colour' }) }));
    expect(() => AcctWebhookModule.forRoot({ secret: '' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(() => OnWebhook('invoice.payed' as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'patterns' }) }));
    expect(() => OnWebhook([])).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION' }));
    expect(() => AcctWebhookModule.forRootAsync({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_CONFIGURATION', details: expect.objectContaining({ option: 'useFactory' }) }));
  });

  it('answers 500 BODY_ALREADY_PARSED, with the fix in the log line, when a parser was mounted on the Express instance before Nest created the app', async () => {
    const instance = express();
    instance.use(express.json());
    const outcomes: ReceiveOutcome[] = [];
    const { url } = await start(
      'express',
      AcctWebhookModule.forRoot({ secret: SECRET, store: memoryStore(), logger: false, onOutcome: (outcome) => void outcomes.push(outcome) }),
      [Ledger, Billing],
      { adapter: new ExpressAdapter(instance) },
    );
    const { body, headers } = signedRequest(createTestEvent('invoice.paid'), SECRET);
    const response = await post(url, body, headers);
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ error: { code: 'BODY_ALREADY_PARSED' } });
    expect(String((outcomes[0]!.error as Error).message)).toMatch(/rawBody: true/);
  });
});
