import type { BodyLimits } from '../http/body.js';
import type { ErrorBody } from '../kernel/errors.js';
import { html, type Html } from './html.js';

/** One request as every adapter hands it to the dashboard. */
export interface DashboardRequest {
  method: string;
  /** The path and query as the client sent them (the base path included). */
  url: string;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Reads the body (form posts only; at most {@link MAX_FORM_BYTES}). */
  body: () => Promise<string>;
  /** The connection to this server is TLS (node: a TLS socket; Fetch: an `https:` URL). */
  tls: boolean;
  /** The framework's own request, handed to `authorize`. */
  original: unknown;
}

/** The answer the adapter writes. */
export interface DashboardResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: string;
}

/** Forms are small; anything larger is refused before it is read. */
export const MAX_FORM_BYTES = 64 * 1024;

/** A form must have arrived within this many milliseconds. */
export const FORM_TIMEOUT_MS = 10_000;

/** How the HTTP edge reads a form: at most {@link MAX_FORM_BYTES}, within {@link FORM_TIMEOUT_MS}. */
export const FORM_LIMITS: BodyLimits = { maxBytes: MAX_FORM_BYTES, timeoutMs: FORM_TIMEOUT_MS };

/**
 * Sent with every answer: scripts and styles only from the dashboard's own files (no inline
 * code, so injected markup cannot run), forms only to itself, never framed.
 */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function withSecurityHeaders(response: DashboardResponse): DashboardResponse {
  return { ...response, headers: { ...SECURITY_HEADERS, ...response.headers } };
}

export function htmlResponse(markup: Html, status = 200, headers: Record<string, string> = {}): DashboardResponse {
  return { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers }, body: markup.text };
}

/** 303 See Other: after a POST, the browser loads the result with GET. */
export function redirect(location: string): DashboardResponse {
  return { status: 303, headers: { location, 'content-type': 'text/html; charset=utf-8' }, body: html`<a href="${location}">Continue</a>`.text };
}

export function jsonResponse(body: ErrorBody, status: number, headers: Record<string, string> = {}): DashboardResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) };
}

export function headerOf(request: Pick<DashboardRequest, 'headers'>, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Whether the client reads HTML: a browser names `text/html` in `Accept` when it opens a page.
 * Anything else (curl's default, `application/json`, no header at all) is an API client and gets the
 * platform's JSON envelope.
 */
export function wantsHtml(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return /\btext\/html\b|\bapplication\/xhtml\+xml\b/i.test(value);
}

/**
 * Whether the request reached the app over https: the connection is TLS, or the proxy in front
 * says so (`X-Forwarded-Proto: https`, or `proto=https` in the first `Forwarded` element). Any
 * client can send those headers, and that is safe here: the answer only decides whether cookies
 * get `Secure`, which makes them stricter; a client that claims https over plain http only keeps
 * its own browser from storing them.
 */
export function cameOverHttps(headers: Readonly<Record<string, string | string[] | undefined>>, tls: boolean): boolean {
  if (tls) return true;
  const forwardedProto = firstOf(headers['x-forwarded-proto']).split(',')[0]!.trim().toLowerCase();
  if (forwardedProto === 'https') return true;
  const forwarded = firstOf(headers.forwarded).split(',')[0]!;
  return /(?:^|;)\s*proto\s*=\s*"?https"?\s*(?:;|$)/i.test(forwarded);
}

function firstOf(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}
