import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/catalog.js';
import { verifySignature } from '../../src/signature.js';
import { closedPort, expectOneLineError, runCli, startRecorder, temporaryDirectory, testSecret, type Recorder } from './helpers.js';
import { startReceiver, type TestReceiver } from './receivers.js';

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

describe('acct-webhook trigger', () => {
  it.each(EVENT_TYPES)('sends a signed sample of %s that the receiver handles', async (type) => {
    const run = await runCli(['trigger', type, '--url', receiver.url, '--secret', secret]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^200 OK  \\d+ ms  ${type.replace('.', '\\.')} evt_test_\\S+\\n  \\{"received":true`));
    const event = receiver.handled.at(-1);
    expect(event?.type).toBe(type);
    expect(run.stdout).toContain(event?.id);
  });

  it('changes fields with --set, JSON values typed', async () => {
    const run = await runCli(['trigger', 'payment.failed', '--url', receiver.url, '--secret', secret, '--set', 'data.object.amount=5000', '--set', 'data.object.failure.code=expired_card', '--set', 'data.object.reference="0042"']);
    expect(run.exitCode).toBe(0);
    const object = receiver.handled.at(-1)?.data.object as Record<string, unknown>;
    expect(object).toMatchObject({ amount: 5000, reference: '0042', failure: { code: 'expired_card' } });
  });

  it('sends --count times; the same --set id is handled once and acknowledged as a duplicate after', async () => {
    const id = `evt_same_${Date.now()}`;
    const run = await runCli(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', secret, '--set', `id=${id}`, '--count', '3', '--json']);
    expect(run.exitCode).toBe(0);
    const { sent } = JSON.parse(run.stdout) as { sent: { status: number; eventId: string; response: { duplicate: boolean } }[] };
    expect(sent.map((answer) => [answer.status, answer.eventId, answer.response.duplicate])).toEqual([
      [200, id, false],
      [200, id, true],
      [200, id, true],
    ]);
    expect(receiver.handled.filter((event) => event.id === id)).toHaveLength(1);
  });

  it('sends a --file byte for byte, signed', async () => {
    const recorder = await startRecorder();
    try {
      const body = '{ "id": "evt_custom", "type": "invoice.paid", "note": "Grüße" }';
      const file = join(workspace.path, 'custom.json');
      writeFileSync(file, body);
      const run = await runCli(['trigger', '--file', file, '--url', recorder.url, '--secret', secret]);
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
    const run = await runCli(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', testSecret('wrong')]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^401 Unauthorized {2}\d+ ms/);
    expect(run.stdout).toContain('SIGNATURE_MISMATCH');
  });

  it('never prints the secret', async () => {
    const run = await runCli(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', secret, '--json']);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });
});

describe('acct-webhook trigger with bad input', () => {
  it('refuses an unknown event type', async () => {
    expectOneLineError(await runCli(['trigger', 'invoice.payed', '--url', receiver.url, '--secret', secret]), 'UNKNOWN_EVENT_TYPE', 2);
  });

  it('refuses to send without a secret', async () => {
    expectOneLineError(await runCli(['trigger', 'invoice.paid', '--url', receiver.url]), 'MISSING_SECRET', 2);
  });

  it('refuses an unreadable --file', async () => {
    expectOneLineError(await runCli(['trigger', '--file', join(workspace.path, 'missing.json'), '--url', receiver.url, '--secret', secret]), 'UNREADABLE_FILE', 2);
  });

  it('refuses bad option values: a URL that is not http(s), --count 0, a --set without =', async () => {
    expectOneLineError(await runCli(['trigger', 'invoice.paid', '--url', 'ftp://127.0.0.1/x', '--secret', secret]), 'INVALID_OPTION', 2);
    expectOneLineError(await runCli(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', secret, '--count', '0']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCli(['trigger', 'invoice.paid', '--url', receiver.url, '--secret', secret, '--set', 'amount']), 'INVALID_OPTION', 2);
  });

  it('says so when nothing answers: exit 1', async () => {
    const port = await closedPort();
    expectOneLineError(await runCli(['trigger', 'invoice.paid', '--url', `http://127.0.0.1:${port}/webhooks`, '--secret', secret]), 'UNREACHABLE', 1);
  });

  it('sends nothing when the command line is wrong', async () => {
    const recorder: Recorder = await startRecorder();
    try {
      await runCli(['trigger', 'invoice.paid', '--url', recorder.url, '--secret', secret, '--count', 'many']);
      await runCli(['trigger', 'invoice.paid', '--file', 'x.json', '--url', recorder.url, '--secret', secret]);
      expect(recorder.requests).toHaveLength(0);
    } finally {
      await recorder.close();
    }
  });
});
