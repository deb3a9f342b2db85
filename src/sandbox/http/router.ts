import type { RoutePattern } from '../../http/router.js';
import type { SandboxResponse } from './response.js';

/** A request as a route sees it: the path's parameters, the query, the parsed JSON body. */
export interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export type RouteHandler = (request: RouteRequest) => SandboxResponse | Promise<SandboxResponse>;

/** An endpoint of the sandbox's API; src/http/router.ts matches it. */
export interface Route extends RoutePattern {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  handler: RouteHandler;
  /** Counted against the webhook-retry limit (50 per 15 minutes) as well. */
  webhookRetry?: boolean;
}
