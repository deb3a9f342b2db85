import type { ErrorBody } from '../errors.js';
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

export function headerOf(request: DashboardRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether the client reads HTML (a browser) rather than JSON (a script). */
export function wantsHtml(request: DashboardRequest): boolean {
  const accept = headerOf(request, 'accept') ?? '';
  return accept === '' || accept.includes('text/html') || !accept.includes('json');
}
