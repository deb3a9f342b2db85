import type { IncomingMessage, ServerResponse } from 'node:http';
import { fetchAnswer, writeNodeAnswer, type HttpAnswer } from '../http/answer.js';
import type { BodyLimits } from '../http/body.js';
import type { RawPayload } from '../signing/signature-scheme.js';
import type { WebhookResponse } from '../receiver/answers.js';
import type { BodyOptions } from '../receiver/options.js';
import type { Receiver } from '../receiver/receive.js';

/*
 * What every adapter of the receiver shares (Express, node:http, Fetch, Fastify, Hono, Koa): the
 * body limits in the HTTP edge's terms, and the receiver's answer written back. The edge
 * (src/http/) reads the body and writes the answer; the receiver decides it.
 */

/** The receiver's body options as the HTTP edge's limits. */
export function bodyLimits(body: Pick<BodyOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>): BodyLimits {
  return { maxBytes: body.maxBodyBytes, timeoutMs: body.bodyTimeoutMs };
}

/** The receiver's answer as the edge writes it: its JSON body serialized once (its headers single-valued). */
export function webhookAnswer({ status, headers, body }: WebhookResponse): HttpAnswer & { headers: Record<string, string> } {
  return { status, headers, body: JSON.stringify(body) };
}

/** The receiver's answer as a Fetch `Response`. */
export function webhookFetchResponse(response: WebhookResponse): Response {
  return fetchAnswer(webhookAnswer(response));
}

/**
 * For the adapters on node:http requests (node:http, Express, Koa, Fastify): receive (the core
 * reads a body still arriving, and answers and reports a read that fails), then write the answer
 * unless the framework already answered.
 */
export function answerNodeRequest(receiver: Receiver, req: IncomingMessage, res: ServerResponse, rawBody: RawPayload | Promise<RawPayload>): Promise<void> {
  // Express and Koa cut a mount path off req.url; the secret function is told the whole path.
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url;
  return receiver.receive({ rawBody, headers: req.headers, method: req.method, url }).then((response) => {
    if (!res.headersSent) writeNodeAnswer(req, res, webhookAnswer(response));
  });
}
