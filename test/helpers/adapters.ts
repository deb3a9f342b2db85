import type { RequestListener } from 'node:http';
import express from 'express';
import express4 from 'express4';
import { fetchHandler, nodeHandler, webhookHandler, type Receiver, type WebhookHandlerOptions } from '../../src/index.js';
import { fetchListener } from './fetch-server.js';

/** The three adapters, each served as a node:http listener so one test table runs against all of them. */
export interface Served {
  listener: RequestListener;
  receiver: Receiver;
}

export interface Adapter {
  name: string;
  /** Whether the adapter itself routes by path (the Fetch handler leaves routing to the framework). */
  routes: boolean;
  serve(options: WebhookHandlerOptions): Served;
}

/** `app.use(webhookHandler(…))` in an Express app that has a route of its own too. */
function expressAdapter(name: string, createApp: typeof express): Adapter {
  return {
    name,
    routes: true,
    serve(options) {
      const handler = webhookHandler(options);
      const app = createApp();
      app.use(handler);
      app.get('/health', (_req, res) => {
        res.json({ from: 'app' });
      });
      return { listener: app, receiver: handler.receiver };
    },
  };
}

export const adapters: Adapter[] = [
  expressAdapter('express (app.use)', express),
  // The adapter imports no Express: it works with what Express 4 and 5 both give a middleware.
  expressAdapter('express 4 (app.use)', express4),
  {
    name: 'node:http',
    routes: true,
    serve(options) {
      const handler = nodeHandler(options);
      return { listener: handler, receiver: handler.receiver };
    },
  },
  {
    name: 'fetch',
    routes: false,
    serve(options) {
      const handler = fetchHandler(options);
      return { listener: fetchListener(handler), receiver: handler.receiver };
    },
  },
];

/** POSTs to `${url}/webhooks` and reads the JSON answer. */
export async function post(url: string, body: string | Buffer, headers: Record<string, string>) {
  const response = await fetch(`${url}/webhooks`, { method: 'POST', body, headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, never> };
}
