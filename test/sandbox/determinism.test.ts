import { describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { sandboxWithReceiver } from './helpers.js';

/*
 * --seed: ids, amounts and timestamps are reproducible. The same script against two fresh
 * sandboxes with the same seed gives byte-identical event payloads; only the signatures (made
 * with each run's random secret) and their timestamps (the wall-clock time of each attempt)
 * differ — the receiver here checks them with its default 300 s window around the wall clock.
 */

interface Run {
  apiKey: string;
  answers: string[];
  payloads: string[];
  signatures: string[];
  timestamps: number[];
}

async function runScript(options: SandboxOptions): Promise<Run> {
  const setup = await sandboxWithReceiver(options);
  try {
    const { call, sandbox } = setup;
    const answers: string[] = [];
    const send = async (method: string, path: string, body?: unknown) => {
      const answer = await call(method, path, body);
      answers.push(JSON.stringify(answer.body));
      return answer.body?.data as { id: string };
    };
    const customer = await send('POST', '/customers', { name: 'Bäckerei Huber GmbH' });
    const invoice = await send('POST', '/invoices', { customer_id: customer.id, amount: 16950, currency: 'EUR', vat_rate: 10 });
    await send('POST', `/invoices/${invoice.id}/send`);
    await send('POST', '/transactions', { invoice_id: invoice.id, amount: 16950, currency: 'EUR' });
    await send('POST', '/sandbox/subscriptions', { customer_id: customer.id, plan: 'starter' });
    await sandbox.settle();
    await send('POST', '/sandbox/clock', { advance: '32d' });
    await send('GET', '/invoices');
    return {
      apiKey: sandbox.apiKey,
      answers,
      // By event id: deliveries run concurrently, so two events of one request may arrive in
      // either order (the document promises no order); their bytes are what must not change.
      payloads: setup.receiver.raw.map((delivery) => delivery.body).sort(),
      signatures: setup.receiver.raw.map((delivery) => String(delivery.headers['x-svc-signature'])).sort(),
      timestamps: setup.receiver.raw.map((delivery) => Number(delivery.headers['x-svc-timestamp'])),
    };
  } finally {
    await setup.stop();
  }
}

describe('a seeded sandbox', () => {
  it('produces byte-identical payloads, answers and key in two runs of the same script; only signatures and their wall-clock timestamps differ', async () => {
    const first = await runScript({ seed: 2026 });
    const second = await runScript({ seed: 2026 });
    expect(first.payloads).toHaveLength(7);
    expect(second.payloads).toEqual(first.payloads);
    expect(second.answers).toEqual(first.answers);
    expect(second.apiKey).toBe(first.apiKey);
    expect(second.signatures).not.toEqual(first.signatures);
    // Signed with the wall clock (the seeded clock is in January 2026), after the advance too.
    const now = Date.now() / 1000;
    expect([...first.timestamps, ...second.timestamps].every((timestamp) => Math.abs(now - timestamp) < 300)).toBe(true);
  });

  it('gives other ids with another seed, and the same times', async () => {
    const first = await runScript({ seed: 1 });
    const other = await runScript({ seed: 2 });
    const ids = (run: Run) => run.payloads.map((payload) => (JSON.parse(payload) as { id: string }).id);
    const created = (run: Run) => run.payloads.map((payload) => (JSON.parse(payload) as { created: string }).created);
    expect(ids(other)).not.toEqual(ids(first));
    expect(created(other)).toEqual(created(first));
  });
});
