import { z } from 'zod';
import { callable, instanceOf, parseOptions } from '../kernel/configuration.js';
import { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import { isLogger, resolveLogger, type Logger, type LoggerOption } from '../logging/logger.js';
import type { Receiver } from '../receiver/receive.js';
import { receiverSideOf, type ReceiverSide } from './receiver-side.js';
import type { RegistrationNamer } from './registration-name.js';

/**
 * Decides whether a request may use the dashboard. It gets the framework's own request (Express's
 * `req`, node:http's `IncomingMessage`, the Fetch API's `Request`), so it can read the host app's
 * session. There is no default: a dashboard without it refuses to start.
 */
export type Authorize<Request> = (request: Request) => boolean | Promise<boolean>;

/** The options every dashboard adapter takes. Give a dispatcher, a receiver, or both. */
export interface DashboardOptions<Request = unknown> {
  /** The sending side: registrations, the delivery log, retries, test deliveries. */
  dispatcher?: Dispatcher;
  /** The receiving side: handled events, the quarantine (with reprocessing), the inbox when on. */
  receiver?: Receiver;
  /** Required: `true` lets the request in; `false` answers 403. */
  authorize: Authorize<Request>;
  /**
   * Where the dashboard is mounted in the host app: every link and form points below it, and
   * requests outside it are passed on (Express, node:http with `next`) or answered 404.
   * @default '/'
   */
  basePath?: string;
  /**
   * Where a request that failed unexpectedly is logged (one line at `error`: method, path without
   * the query, the error); the client gets a 500 page. A logger (pino, or anything with
   * debug/info/warn/error/child), or `false` for silence.
   * @default JSON lines in pino's format at info to stderr (built in), `component: "dashboard"`
   */
  logger?: LoggerOption;
  /**
   * The time the pages count from: the end of the charts' range, "next in 2 h 40 min", what is
   * stale. Give the same clock as the Dispatcher's and the receiver's when they simulate time.
   * @default Date.now
   * @example dashboardNodeHandler({ dispatcher, authorize, clock: simulated.now })
   */
  clock?: () => number;
  /**
   * What the pages call a registration, by the Dispatcher's id: the id and URL its users know,
   * when the Dispatcher's record holds others (a proxy in front of the receivers). The pages
   * show the Dispatcher's id and delivery URL beside it; links keep the Dispatcher's id. The CLI's
   * `dashboard --db` sets it for a sandbox's database. Called for every registration a page
   * shows, so it should answer from memory or a local lookup.
   * @default the Dispatcher's own id and URL
   * @example dashboardNodeHandler({ dispatcher, authorize, registrationName: (id) => names.get(id) })
   */
  registrationName?: RegistrationNamer;
}

/** The options after checking: the base path without a trailing slash ('' for the root). */
export interface ResolvedDashboard {
  dispatcher: Dispatcher | undefined;
  receiver: ReceiverSide | undefined;
  authorize: Authorize<unknown>;
  basePath: string;
  logger: Logger;
  clock: () => number;
  registrationName: RegistrationNamer | undefined;
}

const receiverShape = z.custom<Receiver>(
  (value) => typeof value === 'object' && value !== null && typeof (value as Receiver).reprocess === 'function' && typeof (value as Receiver).store === 'object',
  { error: 'must be a receiver (createReceiver(), or handler.receiver of an adapter)' },
);

const basePath = z
  .string({ error: 'must be a string' })
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, { error: 'must be a path starting with / (letters, digits and -._~ only)' })
  .refine((path) => !path.includes('//'), { error: 'must not contain //' })
  .transform((path) => path.replace(/\/+$/, ''));

const optionsSchema = z
  .strictObject({
    dispatcher: instanceOf(Dispatcher, 'a Dispatcher from acct-webhook/dispatcher').optional(),
    receiver: receiverShape.optional(),
    authorize: callable<Authorize<unknown>>('(request) => boolean | Promise<boolean>'),
    // prefault: the default goes through the transform too ('/' → '', the root).
    basePath: basePath.prefault('/'),
    logger: z.union([z.literal(false), z.custom<Logger>(isLogger)], { error: 'must be a logger (pino, or debug/info/warn/error/child) or false' }).optional(),
    clock: callable<() => number>('() => number (ms since the epoch)').optional(),
    registrationName: callable<RegistrationNamer>('(dispatcherId) => { id, url } | undefined').optional(),
  })
  .refine((options) => options.dispatcher !== undefined || options.receiver !== undefined, {
    error: 'needs a dispatcher, a receiver or both',
    path: ['dispatcher'],
  });

/**
 * Checks the options when the factory runs.
 * @throws ConfigurationError (`INVALID_CONFIGURATION`) for a missing `authorize`, an unknown
 *   option, a bad base path, or neither a dispatcher nor a receiver
 */
export function resolveDashboardOptions(options: DashboardOptions<never>, subject: string): ResolvedDashboard {
  const valid = parseOptions(optionsSchema, options, subject);
  return {
    dispatcher: valid.dispatcher,
    receiver: valid.receiver === undefined ? undefined : receiverSideOf(valid.receiver),
    authorize: valid.authorize,
    basePath: valid.basePath,
    logger: resolveLogger(valid.logger, 'dashboard'),
    clock: valid.clock ?? Date.now,
    registrationName: valid.registrationName,
  };
}
