import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signature.js';
import { closedPort, expectOneLineError, runCli, startListen, startRecorder, testSecret, type CliProcess, type Recorder } from './helpers.js';

const running: CliProcess[] = [];
const recorders: Recorder[] = [];
afterEach(async () => {
  for (const process of running.splice(0)) process.kill();
  for (const recorder of recorders.splice(0)) await recorder.close();
});

async function listen(args: string[]): Promise<{ process: CliProcess; url: string }> {
  const started = await startListen(args);
  running.push(started.process);
  return started;
}

describe('acct-webhook listen', () => {
  it('shows a triggered event with its time, type, id and key fields, and stops on Ctrl-C', async () => {
    const secret = testSecret('listen');
    const { process, url } = await listen(['--secret', secret]);
    const sent = await runCli(['trigger', 'invoice.paid', '--url', url, '--secret', secret, '--set', 'data.object.amount=5000', '--json']);
    expect(sent.exitCode).toBe(0);
    const { sent: [answer] } = JSON.parse(sent.stdout) as { sent: { eventId: string }[] };
    const [line] = await process.waitForOutput(new RegExp(`\\d\\d:\\d\\d:\\d\\d  200 handled +invoice\\.paid +${answer!.eventId}\\n.*\\n`));
    expect(line).toContain('number RE-2026-0042');
    expect(line).toContain('amount 50.00 EUR');
    expect(line).toContain('status paid');
    expect(await process.stop('SIGINT')).toBe(0);
  });

  it('shows a request with a bad signature as rejected, with its code', async () => {
    const secret = testSecret('listen-bad');
    const { process, url } = await listen(['--secret', secret]);
    const sent = await runCli(['trigger', 'invoice.paid', '--url', url, '--secret', testSecret('other')]);
    expect(sent.exitCode).toBe(1);
    await process.waitForOutput(/\d\d:\d\d:\d\d {2}401 rejected +SIGNATURE_MISMATCH\n/);
    expect(process.stdout).not.toContain(secret);
  });

  it('prints one JSON object per delivery with --json', async () => {
    const secret = testSecret('listen-json');
    const { process, url } = await listen(['--secret', secret, '--json']);
    expect((await runCli(['trigger', 'customer.created', '--url', url, '--secret', secret, '--set', 'id=evt_json_1', '--count', '2'])).exitCode).toBe(0);
    await process.waitForOutput(/"outcome":"duplicate"/);
    const lines = process.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ listening: url });
    expect(lines.slice(1)).toMatchObject([
      { outcome: 'handled', status: 200, type: 'customer.created', eventId: 'evt_json_1', fields: { name: 'Bäckerei Huber GmbH' } },
      { outcome: 'duplicate', status: 200, eventId: 'evt_json_1' },
    ]);
  });

  it('forwards each new verified event to the app: the exact bytes, re-signed with the same secret', async () => {
    const secret = testSecret('forward');
    const app = await startRecorder();
    recorders.push(app);
    const { process, url } = await listen(['--secret', secret, '--forward-to', app.url]);
    const sent = await runCli(['trigger', 'uva.submitted', '--url', url, '--secret', secret, '--json']);
    expect(sent.exitCode).toBe(0);
    await process.waitForOutput(/forwarded to .*: 200/);
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
    const { process, url } = await listen(['--secret', secret, '--forward-to', app.url]);
    const trigger = () => runCli(['trigger', 'payment.received', '--url', url, '--secret', secret, '--set', 'id=evt_forward_retry']);
    const failed = await trigger();
    expect(failed.exitCode).toBe(1);
    expect(failed.stdout).toMatch(/^500 /);
    await process.waitForOutput(/500 handler_failed +payment\.received +evt_forward_retry\n/);
    expect(app.requests).toHaveLength(1);
    appUp = true;
    const retried = await trigger();
    expect(retried.exitCode).toBe(0);
    await process.waitForOutput(/200 handled +payment\.received +evt_forward_retry/);
    expect(app.requests).toHaveLength(2);
  });

  it('answers 500 when the app cannot be reached at all', async () => {
    const secret = testSecret('forward-closed');
    const port = await closedPort();
    const { process, url } = await listen(['--secret', secret, '--forward-to', `http://127.0.0.1:${port}/webhooks`]);
    const sent = await runCli(['trigger', 'invoice.sent', '--url', url, '--secret', secret]);
    expect(sent.exitCode).toBe(1);
    await process.waitForOutput(/500 handler_failed +invoice\.sent/);
  });
});

describe('acct-webhook listen with bad input', () => {
  it('needs a secret', async () => {
    expectOneLineError(await runCli(['listen', '--port', '0']), 'MISSING_SECRET', 2);
  });

  it('refuses a port in use', async () => {
    const secret = testSecret('port');
    const { url } = await listen(['--secret', secret]);
    const port = new URL(url).port;
    expectOneLineError(await runCli(['listen', '--port', port, '--secret', secret]), 'INVALID_OPTION', 2);
  });

  it('refuses a port out of range and a --forward-to that is not a URL', async () => {
    expectOneLineError(await runCli(['listen', '--port', '70000', '--secret', 'whsec_x']), 'INVALID_OPTION', 2);
    expectOneLineError(await runCli(['listen', '--forward-to', 'localhost:3000', '--secret', 'whsec_x']), 'INVALID_OPTION', 2);
  });
});
