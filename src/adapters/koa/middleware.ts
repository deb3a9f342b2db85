import type { Context, Next } from 'koa';
import { discardUnread, readNodeBody } from '../../http/body.js';
import { bodyAlreadyParsed } from '../../http/errors.js';
import type { WebhookSecret } from '../../signing/signature.js';
import { bodyLimits, webhookAnswer } from '../shared.js';
import { resolveHandlerOptions, type BodyOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';

/** The middleware `koaWebhooks` returns, with its receiver attached. */
export type KoaWebhookMiddleware = ((ctx: Context, next: Next) => Promise<void>) & {
  /** The receiver behind the middleware: its store, `inbox`, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/**
 * The middleware `koaWebhooks` builds on a platform (the store a receiver given none gets, and its
 * HMAC): acct-webhook/koa's `koaWebhooks` is this on Node.js (./index.ts).
 */
export function buildKoaWebhooks(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): KoaWebhookMiddleware {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'koaWebhooks', platform);
  const receiver = buildReceiver(resolved);
  const middleware = async (ctx: Context, next: Next): Promise<void> => {
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    if (path !== body.path) {
      await next();
      return;
    }
    const rawBody = ctx.method === 'POST' ? bodyOf(ctx, body) : '';
    const answer = webhookAnswer(await receiver.receive({ rawBody, headers: ctx.req.headers, method: ctx.method, url: ctx.originalUrl }));
    ctx.status = answer.status;
    ctx.set(answer.headers);
    ctx.body = answer.body;
    discardUnread(ctx.req);
  };
  return Object.assign(middleware, { receiver });
}

function bodyOf(ctx: Context, limits: Pick<BodyOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>): Promise<Buffer | string> {
  const request = ctx.request as { rawBody?: unknown; body?: unknown };
  if (typeof request.rawBody === 'string' || Buffer.isBuffer(request.rawBody)) return Promise.resolve(request.rawBody);
  if (ctx.req.readableEnded || request.body !== undefined) {
    const fix = 'Mount koaWebhooks before the body parser (app.use(koaWebhooks(…)) first), or use a parser that keeps ctx.request.rawBody.';
    return Promise.reject(bodyAlreadyParsed(fix, { parsed_body_type: typeof request.body }));
  }
  return readNodeBody(ctx.req, bodyLimits(limits));
}
