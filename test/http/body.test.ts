import { describe, expect, it } from 'vitest';
import { readWebBody } from '../../src/http/body.js';
import { HttpBodyError } from '../../src/http/errors.js';
import { matchRoute } from '../../src/http/router.js';

const LIMITS = { maxBytes: 16, timeoutMs: 50 };

/** A request whose body stream is driven by the test: chunks, then an end, an error, or nothing. */
function streamed(chunks: readonly string[], then: 'end' | 'hang' | 'error', headers: Record<string, string> = {}): { request: Request; cancelled: Promise<void> } {
  let onCancel: () => void = () => undefined;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      if (then === 'end') controller.close();
      if (then === 'error') controller.error(new Error('the stream broke'));
    },
    cancel: () => onCancel(),
  });
  return { request: new Request('http://127.0.0.1/webhooks', { method: 'POST', body, headers, duplex: 'half' }), cancelled };
}

async function refusal(read: Promise<unknown>): Promise<{ code: string; status: number }> {
  const error = await read.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(HttpBodyError);
  return { code: (error as HttpBodyError).code, status: (error as HttpBodyError).status };
}

describe('readWebBody (the Fetch side of the HTTP edge)', () => {
  it('returns the bytes of a body within the limit, chunks joined in order', async () => {
    const { request } = streamed(['{"a":', '1}'], 'end');
    expect(new TextDecoder().decode(await readWebBody(request, LIMITS))).toBe('{"a":1}');
  });

  it('refuses a declared content-length over the limit before reading a byte (413)', async () => {
    const request = new Request('http://127.0.0.1/webhooks', { method: 'POST', body: 'x'.repeat(17), headers: { 'content-length': '17' } });
    expect(await refusal(readWebBody(request, LIMITS))).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    expect(request.bodyUsed).toBe(false);
  });

  it('stops a stream without a length at the limit and cancels it (413)', async () => {
    const { request, cancelled } = streamed(['x'.repeat(10), 'x'.repeat(10)], 'hang');
    expect(await refusal(readWebBody(request, LIMITS))).toEqual({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
    await cancelled;
  });

  it('cuts off a body that does not end within the timeout and cancels it (408)', async () => {
    const { request, cancelled } = streamed(['{"a"'], 'hang');
    expect(await refusal(readWebBody(request, LIMITS))).toEqual({ code: 'BODY_TIMEOUT', status: 408 });
    await cancelled;
  });

  it('answers a stream that fails mid-body as aborted (400)', async () => {
    const { request } = streamed(['{"a"'], 'error');
    expect(await refusal(readWebBody(request, LIMITS))).toEqual({ code: 'BODY_ABORTED', status: 400 });
  });
});

describe('matchRoute (the router of the dashboard and the sandbox)', () => {
  const routes = [
    { method: 'GET', path: '/deliveries/:id' },
    { method: 'POST', path: '/deliveries/:id/retry' },
  ] as const;

  it('matches segment by segment, decoding parameters', () => {
    expect(matchRoute(routes, 'GET', '/deliveries/dlv%201')).toEqual({ route: routes[0], params: { id: 'dlv 1' } });
    expect(matchRoute(routes, 'HEAD', '/deliveries/x')).toMatchObject({ route: routes[0] });
  });

  it("tells a path that exists with another method ('method') from one that does not (undefined)", () => {
    expect(matchRoute(routes, 'GET', '/deliveries/x/retry')).toBe('method');
    expect(matchRoute(routes, 'GET', '/deliveries')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/deliveries/')).toBeUndefined();
    expect(matchRoute(routes, 'GET', '/deliveries/%E0%A4%A')).toBeUndefined();
  });
});
