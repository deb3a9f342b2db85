import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientErrors } from '../../src/http/client-error.js';
import { rawRequest } from '../helpers/raw-http.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function started(): Promise<string> {
  const server = answerClientErrors(createServer((_request, response) => response.end('handled')));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A request line of about `bytes` bytes: four-byte characters, percent-encoded, in the query. */
function longTarget(bytes: number): string {
  return `/?q=${'%F0%9F%98%80'.repeat(Math.ceil(bytes / 12))}`;
}

describe('answerClientErrors (what node:http refuses before a handler runs)', () => {
  it('answers an oversized request line 431 with the error envelope, every time, never a reset', async () => {
    const origin = await started();
    // The request line is 20 to 120 kB, sent whole before the answer is read: closing such a
    // socket with its input unread makes the kernel reset it, and the client would lose the 431
    // (Node.js 24's own handler does; the CLI dashboard's fuzz test met it).
    for (let kilobytes = 20; kilobytes <= 120; kilobytes += 4) {
      const answer = await rawRequest(origin, { target: longTarget(kilobytes * 1024), headers: [['accept', 'application/json']] });
      expect(answer.status, `${kilobytes} kB`).toBe(431);
      expect(answer.headers.get('connection')).toEqual(['close']);
      expect(JSON.parse(answer.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: expect.any(String), details: {} } });
    }
  });

  it('answers a request that is not HTTP/1.1 400 with the error envelope', async () => {
    const origin = await started();
    const answer = await rawRequest(origin, { target: '/with a space' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'BAD_REQUEST' } });
  });

  it('keeps serving: a valid request after the refusals is handled', async () => {
    const origin = await started();
    await rawRequest(origin, { target: longTarget(40_000) });
    await rawRequest(origin, { target: '/with a space' });
    const answer = await rawRequest(origin, { target: '/fine' });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('handled');
  });
});
