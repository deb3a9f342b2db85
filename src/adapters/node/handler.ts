import type { IncomingMessage, ServerResponse } from 'node:http';
import { writeNodeAnswer } from '../../http/answer.js';
import { readConsumableNodeBody } from '../../http/body.js';
import { requestPath } from '../../http/path.js';
import type { WebhookSecret } from '../../signing/signature-scheme.js';
import { answerNodeRequest, bodyLimits, webhookAnswer } from '../shared.js';
import { failed } from '../../receiver/answers.js';
import { ReceiverError } from '../../receiver/errors.js';
import { resolveHandlerOptions, type ReceiverPlatform, type WebhookHandlerOptions } from '../../receiver/options.js';
import { buildReceiver, type Receiver } from '../../receiver/receive.js';

/** The listener `nodeHandler` returns, with its receiver attached. */
export type NodeWebhookHandler = ((req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void) & {
  /** The receiver behind the handler: its store, `reprocess`, `ready`, `close`. */
  readonly receiver: Receiver;
};

/** What a 500 `BODY_ALREADY_PARSED` from `nodeHandler` tells the user to change. */
const FIX = 'Next.js API route: set config.api.bodyParser = false. Else: call nodeHandler before any body parser.';

/**
 * The listener `nodeHandler` builds on a platform (the store a receiver given none gets, and its
 * HMAC): acct-webhook's `nodeHandler` is this on Node.js (./index.ts).
 */
export function buildNodeHandler(options: WebhookSecret | WebhookHandlerOptions, platform: ReceiverPlatform): NodeWebhookHandler {
  const { receiver: resolved, body } = resolveHandlerOptions(options, 'nodeHandler', platform);
  const receiver = buildReceiver(resolved);
  const limits = bodyLimits(body);
  const handler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    if (requestPath(req.url) !== body.path) {
      if (next) return next();
      const error = new ReceiverError('NOT_FOUND', `Nothing here; webhooks are received at ${body.path}`, { path: body.path });
      return writeNodeAnswer(req, res, webhookAnswer(failed(error)));
    }
    void answerNodeRequest(receiver, req, res, req.method === 'POST' ? readConsumableNodeBody(req, limits, FIX) : '');
  };
  return Object.assign(handler, { receiver });
}
