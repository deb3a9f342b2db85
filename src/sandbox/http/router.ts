import type { SandboxResponse } from './response.js';

/** A request as a route sees it: the path's parameters, the query, the parsed JSON body. */
export interface RouteRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

export type RouteHandler = (request: RouteRequest) => SandboxResponse | Promise<SandboxResponse>;

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** `/v1/invoices/:id/send` */
  path: string;
  handler: RouteHandler;
  /** Counted against the webhook-retry limit (50 per 15 minutes) as well. */
  webhookRetry?: boolean;
}

/** The route for a method and path, with the path's parameters; null when none matches. */
export function matchRoute(routes: readonly Route[], method: string, path: string): { route: Route; params: Record<string, string> } | null {
  const segments = path.split('/').filter((segment) => segment !== '');
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/').filter((segment) => segment !== '');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, index) => {
      const segment = decodeURIComponent(segments[index]!);
      if (part.startsWith(':')) params[part.slice(1)] = segment;
      return part.startsWith(':') || part === segment;
    });
    if (matches) return { route, params };
  }
  return null;
}
