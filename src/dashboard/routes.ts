import type { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import { DashboardError } from './errors.js';
import type { DashboardResponse } from './http.js';
import type { PageContext } from './layout.js';
import type { ReceiverSide } from './receiver-side.js';

/** What a route handler gets. */
export interface RouteContext {
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** The posted form (empty for GET). */
  form: URLSearchParams;
  page: PageContext;
  dispatcher: Dispatcher | undefined;
  receiver: ReceiverSide | undefined;
  /** Now, by the dashboard's `clock`. */
  now: number;
}

export type RouteHandler = (context: RouteContext) => Promise<DashboardResponse>;

export interface Route {
  method: 'GET' | 'POST';
  /** `/deliveries/:id/retry`: segments starting with `:` are parameters. */
  path: string;
  handler: RouteHandler;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** The route for a method and path; `undefined` when no path matches, `'method'` when only the method does not. */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch | 'method' | undefined {
  let pathMatched = false;
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params === undefined) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
    pathMatched = true;
  }
  return pathMatched ? 'method' : undefined;
}

function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const expected = pattern.split('/');
  const actual = path.split('/');
  if (expected.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of expected.entries()) {
    const given = actual[index]!;
    if (segment.startsWith(':')) {
      if (given === '') return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(given);
      } catch {
        return undefined;
      }
    } else if (segment !== given) {
      return undefined;
    }
  }
  return params;
}

/** The dispatcher of a route that needs one (its routes exist only when one is given). */
export function dispatcherOf(context: RouteContext): Dispatcher {
  if (!context.dispatcher) throw new DashboardError('NOT_FOUND', 'This dashboard has no dispatcher');
  return context.dispatcher;
}

/** The receiving side of a route that needs one (its routes exist only when one is given). */
export function receiverOf(context: RouteContext): ReceiverSide {
  if (!context.receiver) throw new DashboardError('NOT_FOUND', 'This dashboard has no receiver');
  return context.receiver;
}
