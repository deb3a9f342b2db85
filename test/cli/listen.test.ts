import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signing/signature.js';
import { expectOneLineError, runCommand, startListen, testSecret, type CommandRun } from './helpers.js';
import { closedPort, startRecorder, type Recorder } from './servers.js';

const running: CommandRun[] = [];
const recorders: Recorder[] = [];
afterEach(async () => {
  for (const run of running.splice(0)) await run.stop();
  for (const recorder of recorders.splice(0)) await recorder.close();
});

async function listen(args: string[]): Promise<{ run: CommandRun; url: string }> {
  const started = await startListen(args);
  running.push(started.run);
  return started;
}

function trigger(url: string, secret: string, args: readonly string[] = []): ReturnType<typeof runCommand> {
  return runCommand(['trigger', ...args, '--url', url, '--secret', secret]);
}

describe('acct-webhook listen', () => {
  it('shows a triggered event with its time, type, id and key fields, and stops on Ctrl-C', async () => {
    const secret = testSecret('listen');
    const { run, url } = await listen(['--secret', secret]);
    const sent = await trigger(url, secret, ['invoice.paid', '--set', 'data.object.amount=5000', '--json']);
    expect(sent.exitCode).toBe(0);
    const { sent: [answer] } = JSON.parse(sent.stdout) as { sent: { eventId: string }[] };
    const [line] = await run.waitForOutput(new RegExp(`\\d\\d:\\d\\d:\\d\\d  200 handled +invoice\\.paid +${answer!.eventId}\\n.*\\n`));
    expect(line).toContain('number RE-2026-0042');
    expect(line).toContain('amount 50.00 EUR');
    expect(line).toContain('status paid');
    expect(await run.stop('SIGINT')).toBe(0);
    expect(run.stderr).toBe('Stopped.\n');
  });

  it('shows a request with a bad signature as rejected, with its code', async () => {
    const secret = testSecret('listen-bad');
    const { run, url } = await listen(['--secret', secret]);
    expect((await trigger(url, testSecret('other'), ['invoice.paid'])).exitCode).toBe(1);
    await run.waitForOutput(/\d\d:\d\d:\d\d {2}401 rejected +SIGNATURE_MISMATCH\n/);
    expect(run.stdout).not.toContain(secret);
  });

  it('accepts several secrets while rotating: a delivery signed with either is handled, any other refused', async () => {
    const [newSecret, oldSecret] = [testSecret('new'), testSecret('old')];
    const { run, url } = await listen(['--secret', newSecret, '--secret', oldSecret, '--json']);
    expect((await trigger(url, newSecret, ['invoice.paid', '--id', 'evt_rotate_new'])).exitCode).toBe(0);
    expect((await trigger(url, oldSecret, ['invoice.paid', '--id', 'evt_rotate_old'])).exitCode).toBe(0);
    expect((await trigger(url, testSecret('neither'), ['invoice.paid', '--id', 'evt_rotate_neither'])).exitCode).toBe(1);
    await run.waitForOutput(/"outcome":"rejected"/);
    const deliveries = run.stdout.trim().split('\n').slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(deliveries.map((delivery) => [delivery.outcome, delivery.eventId ?? delivery.code])).toEqual([
      ['handled', 'evt_rotate_new'],
      ['handled', 'evt_rotate_old'],
      ['rejected', 'SIGNATURE_MISMATCH'],
    ]);
    expect(run.stdout).not.toContain(newSecret);
    expect(run.stdout).not.toContain(oldSecret);
  });

  it('takes the secret from WEBHOOK_SECRET', async () => {
    const secret = testSecret('listen-env');
    const { run, url } = await startListen([], { env: { WEBHOOK_SECRET: secret } });
    running.push(run);
    expect((await trigger(url, secret, ['customer.created'])).exitCode).toBe(0);
    await run.waitForOutput(/200 handled +customer\.created/);
  });

  it('prints one JSON object per delivery with --json', async () => {
    const secret = testSecret('listen-json');
    const { run, url } = await listen(['--secret', secret, '--json']);
    expect((await trigger(url, secret, ['customer.created', '--id', 'evt_json_1', '--count', '2'])).exitCode).toBe(0);
    await run.waitForOutput(/"outcome":"duplicate"/);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ listening: url });
    expect(lines.slice(1)).toMatchObject([
      { outcome: 'handled', status: 200, type: 'customer.created', eventId: 'evt_json_1', fields: { name: 'Bäckerei Huber GmbH' } },
      { outcome: 'duplicate', status: 200, eventId: 'evt_json_1' },
    ]);
  });

  it('forwards each new verified event to the app: the exact bytes, re-signed with the (first) secret', async () => {
    const [secret, oldSecret] = [testSecret('forward'), testSecret('forward-old')];
    const app = await startRecorder();
    recorders.push(app);
    const { run, url } = await listen(['--secret', secret, '--secret', oldSecret, '--forward-to', app.url]);
    expect((await trigger(url, oldSecret, ['uva.submitted', '--json'])).exitCode).toBe(0);
    await run.waitForOutput(/forwarded to .*: 200/);
    const [forwarded] = app.requests;
    const event = JSON.parse(forwarded!.body.toString('utf8')) as { id: string; type: string };
    expect(event.type).toBe('uva.submitted');
    expect(() =>
      verifySignature({ payload: forwarded!.body, signature: String(forwarded!.headers['x-svc-signature']), timestamp: String(forwarded!.headers['x-svc-timestamp']), secret }),
    ).not.toThrow();
  });

  it('answers non-2xx when forwarding fails, so the sender retries; the retry is handled once the app is back', async () => {
    const secret = testSecret('forward-fail');
    let appUp = false;
    const app = await startRecorder(() => (appUp ? { status: 200 } : { status: 503, body: { down: true } }));
    recorders.push(app);
    const { run, url } = await listen(['--secret', secret, '--forward-to', app.url]);
    const send = () => trigger(url, secret, ['payment.received', '--id', 'evt_forward_retry']);
    const failed = await send();
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/^500 /);
    await run.waitForOutput(/500 handler_failed +payment\.received +evt_forward_retry\n/);
    expect(app.requests).toHaveLength(1);
    appUp = true;
    expect((await send()).exitCode).toBe(0);
    await run.waitForOutput(/200 handled +payment\.received +evt_forward_retry/);
    expect(app.requests).toHaveLength(2);
  });

  it('answers 500 when the app cannot be reached at all', async () => {
    const secret = testSecret('forward-closed');
    const port = await closedPort();
    const { run, url } = await listen(['--secret', secret, '--forward-to', `http://127.0.0.1:${port}/webhooks`]);
    expect((await trigger(url, secret, ['invoice.sent'])).exitCode).toBe(1);
    await run.waitForOutput(/500 handler_failed +invoice\.sent/);
  });
});

describe('acct-webhook listen with bad input', () => {
  it('needs a secret', async () => {
    expectOneLineError(await runCommand(['listen', '--port', '0']), 'MISSING_SECRET', 2);
  });

  it('refuses a secret with whitespace around it, with only that hint', async () => {
    const run = await runCommand(['listen', '--port', '0', '--secret', testSecret('new'), '--secret', ` ${testSecret('old')}`]);
    expectOneLineError(run, 'INVALID_OPTION', 2);
    expect(run.stderr).toMatch(/^acct-webhook listen: --secret has whitespace/);
  });

  it('refuses a port in use', async () => {
    const secret = testSecret('port');
    const { url } = await listen(['--secret', secret]);
    expectOneLineError(await runCommand(['listen', '--port', new URL(url).port, '--secret', secret]), 'INVALID_OPTION', 2);
  });

  it('refuses a port out of range and a --forward-to that is not a URL', async () => {
    expectOneLineError(await runCommand(['listen', '--port', '70000', '--secret', 'whsec_x']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCommand(['listen', '--forward-to', 'localhost:3000', '--secret', 'whsec_x']), 'INVALID_OPTION', 2);
  });
});
