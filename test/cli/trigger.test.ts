import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, expandEventPattern } from '../../src/events/catalog.js';
import { verifySignature } from '../../src/signing/signature.js';
import { expectOneLineError, runCommand, temporaryDirectory, testSecret } from './helpers.js';
import { startReceiver, type TestReceiver } from './receivers.js';
import { closedPort, startRecorder, type Recorder } from './servers.js';

const secret = testSecret('trigger');
const workspace = temporaryDirectory('cli-trigger');
let receiver: TestReceiver;
beforeAll(async () => {
  receiver = await startReceiver(secret);
});
afterAll(async () => {
  await receiver.close();
  workspace.remove();
});

function trigger(args: readonly string[]): ReturnType<typeof runCommand> {
  return runCommand(['trigger', ...args, '--url', receiver.url, '--secret', secret]);
}

interface Sent {
  status: number;
  eventId: string;
  type: string;
  response: { duplicate?: boolean };
}

describe('acct-webhook trigger', () => {
  it.each(EVENT_TYPES)('sends a signed sample of %s that the receiver handles', async (type) => {
    const run = await trigger([type]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^200 OK  \\d+ ms  ${type.replace('.', '\\.')} evt_test_\\S+\\n  \\{"received":true`));
    const event = receiver.handled.at(-1);
    expect(event?.type).toBe(type);
    expect(run.stdout).toContain(event?.id);
  });

  it.each([
    ['invoice.*', expandEventPattern('invoice.*')],
    ['uva.*', ['uva.submitted', 'uva.confirmed', 'uva.rejected']],
    ['*', [...EVENT_TYPES]],
    [' payment.failed ', ['payment.failed']],
  ])('sends one sample of each type %j selects, in catalog order', async (pattern, types) => {
    const before = receiver.handled.length;
    const run = await trigger([pattern, '--json']);
    expect(run.exitCode).toBe(0);
    const { sent } = JSON.parse(run.stdout) as { sent: Sent[] };
    expect(sent.map((answer) => [answer.type, answer.status])).toEqual(types.map((type) => [type, 200]));
    expect(receiver.handled.slice(before).map((event) => event.type)).toEqual(types);
  });

  it('changes fields with --set, JSON values typed', async () => {
    const run = await trigger(['payment.failed', '--set', 'data.object.amount=5000', '--set', 'data.object.failure.code=expired_card', '--set', 'data.object.reference="0042"']);
    expect(run.exitCode).toBe(0);
    const object = receiver.handled.at(-1)?.data.object as Record<string, unknown>;
    expect(object).toMatchObject({ amount: 5000, reference: '0042', failure: { code: 'expired_card' } });
  });

  it.each([
    ['data.object.amount=12.5', 'amount=1250'],
    ['data.object.vat_amount=3.99', 'vat_amount=399'],
  ])('explains that amounts are integers in minor units: --set %s', async (assignment, hint) => {
    const before = receiver.headers.length;
    const run = await trigger(['invoice.paid', '--set', assignment]);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toContain('amounts are integers in minor units (cents)');
    expect(run.stderr).toContain(hint);
    expect(receiver.headers).toHaveLength(before);
  });

  it('--id sends the same event id again: handled once, then answered "duplicate": true', async () => {
    const id = `evt_same_${Date.now()}`;
    const run = await trigger(['invoice.paid', '--id', id, '--count', '3', '--json']);
    expect(run.exitCode).toBe(0);
    const { sent } = JSON.parse(run.stdout) as { sent: Sent[] };
    expect(sent.map((answer) => [answer.status, answer.eventId, answer.response.duplicate])).toEqual([
      [200, id, false],
      [200, id, true],
      [200, id, true],
    ]);
    expect(receiver.handled.filter((event) => event.id === id)).toHaveLength(1);
  });

  it('without --id, every sample has a fresh id: none is a duplicate', async () => {
    const run = await trigger(['invoice.paid', '--count', '2', '--json']);
    const { sent } = JSON.parse(run.stdout) as { sent: Sent[] };
    expect(new Set(sent.map((answer) => answer.eventId)).size).toBe(2);
    expect(sent.map((answer) => answer.response.duplicate)).toEqual([false, false]);
  });

  it('sends a --file byte for byte, signed', async () => {
    const recorder = await startRecorder();
    try {
      const body = '{ "id": "evt_custom", "type": "invoice.paid", "note": "Grüße" }';
      const file = join(workspace.path, 'custom.json');
      writeFileSync(file, body);
      const run = await runCommand(['trigger', '--file', file, '--url', recorder.url, '--secret', secret]);
      expect(run.exitCode).toBe(0);
      const [request] = recorder.requests;
      expect(request?.body.toString('utf8')).toBe(body);
      expect(() =>
        verifySignature({ payload: request!.body, signature: String(request!.headers['x-svc-signature']), timestamp: String(request!.headers['x-svc-timestamp']), secret }),
      ).not.toThrow();
    } finally {
      await recorder.close();
    }
  });

  it('prints the status and answer of a receiver that refuses, and exits 1', async () => {
    const run = await runCommand(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', testSecret('wrong')]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^401 Unauthorized {2}\d+ ms/);
    expect(run.stdout).toContain('SIGNATURE_MISMATCH');
  });

  it('never prints the secret', async () => {
    const run = await trigger(['invoice.paid', '--json']);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });
});

describe('acct-webhook trigger with bad input', () => {
  it('refuses an unknown event type, suggesting types and groups, which it accepts', async () => {
    const run = await trigger(['invoice.payed']);
    expectOneLineError(run, 'UNKNOWN_EVENT_TYPE', 2);
    expect(run.stderr).toContain('(or a group such as invoice.*, or *)');
    expectOneLineError(await trigger(['invoices.*']), 'UNKNOWN_EVENT_TYPE', 2);
  });

  it('refuses to send without a secret', async () => {
    expectOneLineError(await runCommand(['trigger', 'invoice.paid', '--url', receiver.url]), 'MISSING_SECRET', 2);
  });

  it('refuses an unreadable --file', async () => {
    expectOneLineError(await runCommand(['trigger', '--file', join(workspace.path, 'missing.json'), '--url', receiver.url, '--secret', secret]), 'UNREADABLE_FILE', 2);
  });

  it.each([
    ['a URL that is not http(s)', ['trigger', 'invoice.paid', '--url', 'ftp://127.0.0.1/x', '--secret', secret]],
    ['--count 0', ['trigger', 'invoice.paid', '--url', 'http://127.0.0.1:9/webhooks', '--secret', secret, '--count', '0']],
    ['a --set without =', ['trigger', 'invoice.paid', '--url', 'http://127.0.0.1:9/webhooks', '--secret', secret, '--set', 'amount']],
    ['--id with --file', ['trigger', '--file', 'x.json', '--id', 'evt_1', '--url', 'http://127.0.0.1:9/webhooks', '--secret', secret]],
    ['an empty --id', ['trigger', 'invoice.paid', '--id', '', '--url', 'http://127.0.0.1:9/webhooks', '--secret', secret]],
  ])('refuses %s', async (_case, argv) => {
    expectOneLineError(await runCommand(argv), 'INVALID_OPTION', 2);
  });

  it('says so when nothing answers: exit 1', async () => {
    const port = await closedPort();
    expectOneLineError(await runCommand(['trigger', 'invoice.paid', '--url', `http://127.0.0.1:${port}/webhooks`, '--secret', secret]), 'UNREACHABLE', 1);
  });

  it('sends nothing when the command line is wrong', async () => {
    const recorder: Recorder = await startRecorder();
    try {
      await runCommand(['trigger', 'invoice.paid', '--url', recorder.url, '--secret', secret, '--count', 'many']);
      await runCommand(['trigger', 'invoice.paid', '--file', 'x.json', '--url', recorder.url, '--secret', secret]);
      expect(recorder.requests).toHaveLength(0);
    } finally {
      await recorder.close();
    }
  });
});
