import { z } from 'zod';
import { callable, instanceOf, parseOptions } from '../kernel/configuration.js';
import { DispatcherCore as Dispatcher } from '../dispatcher/dispatcher.js';
import { isLogger, resolveLogger, type Logger, type LoggerOption } from '../logging/logger.js';
import { portalKey } from './portal-link.js';

/** The CSS custom properties a theme may set, each the colour of one part of the page. */
export const PORTAL_COLORS = ['ink', 'muted', 'line', 'accent', 'bad', 'good', 'warn', 'bg'] as const;
/** A themeable colour: `ink` text, `muted` secondary text, `line` borders, `accent` links and buttons, `bad`/`good`/`warn` statuses, `bg` table heads and panels. */
export type PortalColor = (typeof PORTAL_COLORS)[number];

/** How the portal looks, to match the platform's app around it. */
export interface PortalTheme {
  /** The name in the header and in each page's title. @default DEFAULT_PORTAL_TITLE ('Webhooks') */
  title?: string;
  /** A logo in the header: an https URL or a path on this host (`/static/logo.svg`). Its origin is added to the CSP's `img-src`. */
  logoUrl?: string;
  /** Values of the CSS custom properties (`--accent` …): any CSS colour (`#0a7`, `rgb(0 90 170)`, `rebeccapurple`). */
  colors?: Partial<Record<PortalColor, string>>;
}

/** The header's name when the theme gives none. */
export const DEFAULT_PORTAL_TITLE = 'Webhooks';

/** What `portal()`, `portalNodeHandler()` and `portalFetchHandler()` take. */
export interface PortalOptions {
  /** The sending side; each business sees and changes only its own registrations and their deliveries. */
  dispatcher: Dispatcher;
  /**
   * The key links and sessions are signed with (at least 32 characters; keep it secret, as an API
   * key). Changing it ends every session and voids every link not yet opened.
   */
  key: string;
  /** Where the portal is mounted (the path of `createPortalLink`'s `baseUrl`). @default '/' */
  basePath?: string;
  /**
   * The origins that may show the portal in a frame (CSP `frame-ancestors`), e.g.
   * `['https://app.example.com']`. @default [] (none: the portal cannot be framed)
   */
  frameAncestors?: readonly string[];
  /** Title, logo and colours. */
  theme?: PortalTheme;
  /** @default Date.now */
  clock?: () => number;
  /** Where unexpected failures are logged, as the dashboard's `logger`. @default JSON lines to stderr */
  logger?: LoggerOption;
}

export interface ResolvedPortal {
  dispatcher: Dispatcher;
  key: string;
  basePath: string;
  frameAncestors: readonly string[];
  title: string;
  logoUrl: string | undefined;
  colors: Partial<Record<PortalColor, string>>;
  clock: () => number;
  logger: Logger;
}

const basePath = z
  .string({ error: 'must be a string' })
  .regex(/^\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*$/, { error: 'must be a path starting with / (letters, digits and -._~ only)' })
  .refine((path) => !path.includes('//'), { error: 'must not contain //' })
  .transform((path) => path.replace(/\/+$/, ''));

const origin = z.string({ error: 'must be a string' }).regex(/^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/, { error: 'must be an origin such as https://app.example.com (no path)' });

const color = z.string({ error: 'must be a string' }).regex(/^[#A-Za-z0-9(),.%\s/-]{1,64}$/, { error: 'must be a CSS colour (#0a7, rgb(0 90 170), a name)' });

const logoUrl = z
  .string({ error: 'must be a string' })
  .max(2048)
  .refine((url) => /^\/(?!\/)[^\s"'<>\\]*$/.test(url) || /^https:\/\/[^\s"'<>\\]+$/.test(url), { error: 'must be an https URL or a path starting with /' });

const schema = z.strictObject({
  dispatcher: instanceOf(Dispatcher, 'a Dispatcher from acct-webhook/dispatcher'),
  key: portalKey,
  basePath: basePath.prefault('/'),
  frameAncestors: z.array(origin).max(20).optional(),
  theme: z
    .strictObject({
      title: z.string().min(1).max(80).optional(),
      logoUrl: logoUrl.optional(),
      colors: z.partialRecord(z.enum(PORTAL_COLORS), color).optional(),
    })
    .optional(),
  clock: callable<() => number>('() => number (ms since the epoch)').optional(),
  logger: z.union([z.literal(false), z.custom<Logger>(isLogger)], { error: 'must be a logger (pino, or debug/info/warn/error/child) or false' }).optional(),
});

/** @throws ConfigurationError (`INVALID_CONFIGURATION`) for a missing dispatcher or key, a short key, an unknown option, a bad origin, colour or logo */
export function resolvePortalOptions(options: PortalOptions, subject: string): ResolvedPortal {
  const valid = parseOptions(schema, options, subject);
  return {
    dispatcher: valid.dispatcher,
    key: valid.key,
    basePath: valid.basePath,
    frameAncestors: valid.frameAncestors ?? [],
    title: valid.theme?.title ?? DEFAULT_PORTAL_TITLE,
    logoUrl: valid.theme?.logoUrl,
    colors: valid.theme?.colors ?? {},
    clock: valid.clock ?? Date.now,
    logger: resolveLogger(valid.logger, 'dashboard'),
  };
}
