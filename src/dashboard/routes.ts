import type { RoutePattern } from '../http/router.js';
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

/** A page or form of the dashboard; src/http/router.ts matches it. */
export interface Route extends RoutePattern {
  method: 'GET' | 'POST';
  handler: RouteHandler;
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
