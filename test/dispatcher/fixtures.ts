import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { Dispatcher, type DispatcherOptions } from '../../src/dispatcher.js';
import { FakeClock } from '../helpers/clock.js';

/** A fresh directory, removed when the test ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acct-dispatch-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A dispatcher on a SQLite file in a temp dir (unless a store is given), quiet, closed when the test ends. */
export function testDispatcher(options: DispatcherOptions = {}): Dispatcher {
  const dispatcher = new Dispatcher({
    ...(options.store === undefined ? { database: join(tempDir(), 'dispatch.db') } : {}),
    logger: false,
    allowInsecureUrls: true,
    ...options,
  });
  onTestFinished(() => dispatcher.close());
  return dispatcher;
}

/** A dispatcher with a fake clock. */
export function clockedDispatcher(options: DispatcherOptions = {}): { dispatcher: Dispatcher; clock: FakeClock } {
  const clock = new FakeClock();
  return { dispatcher: testDispatcher({ clock: clock.now, ...options }), clock };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Order of arrival, from 0. */
  index: number;
}

export type Answer = number | { status: number; body?: string; headers?: Record<string, string> } | 'hang';

/**
 * A receiver that records every request and answers with `answer(request)`: a status, a status
 * with a body, or 'hang' (never answers).
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private waiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly answer: (request: ReceivedRequest) => Answer = () => 204) {}

  readonly listener: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        index: this.requests.length,
      };
      this.requests.push(request);
      this.notify();
      const answer = this.answer(request);
      if (answer === 'hang') return;
      const { status, body = '', headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, headers).end(body);
    });
  };

  /** Resolves once `count` requests have arrived. */
  received(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  eventIds(): string[] {
    return this.requests.map((request) => (JSON.parse(request.body) as { id: string }).id);
  }

  private notify(): void {
    const ready = this.waiters.filter((waiter) => this.requests.length >= waiter.count);
    this.waiters = this.waiters.filter((waiter) => this.requests.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }
}

export const BUSINESS_ID = 'biz_4mVt9QeZxK2hRw7L';
export const MINUTE = 60_000;
