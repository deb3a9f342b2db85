/*
 * The path of a request as the client sent it. The dashboard matches its base path and its routes
 * on this raw path, as a host framework's router does (Express, Connect, node:http apps), never on
 * a resolved one: `new URL()` would turn `/other/../admin/webhooks` into `/admin/webhooks` and
 * `/.//evil.example/x` into a path that starts with `//`, so the dashboard would serve (or redirect
 * to) what the host app routes elsewhere. A path with a dot segment is refused outright.
 */

/** The path and the query of a request target. */
export interface RequestTarget {
  /** As sent: not resolved, not decoded (`/a/%2e/b` stays so). */
  path: string;
  query: URLSearchParams;
}

/** `scheme://authority` at the start of an absolute-form target (a request to a proxy). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * Splits a request target — `/path?query` as node:http hands it over, an absolute URL, or `*` —
 * into its path and its query. Never throws.
 *
 * @example
 * requestTarget('/admin/webhooks/deliveries?status=retrying').path // '/admin/webhooks/deliveries'
 */
export function requestTarget(target: string): RequestTarget {
  const absolute = ABSOLUTE_FORM.exec(target);
  const relative = absolute ? target.slice(absolute[0].length) || '/' : target;
  const end = relative.search(/[?#]/);
  const path = end === -1 ? relative : relative.slice(0, end);
  const query = end !== -1 && relative[end] === '?' ? relative.slice(end + 1).split('#')[0]! : '';
  return { path, query: new URLSearchParams(query) };
}

/** A `.` or `..` segment, raw or percent-encoded in any case (`%2e`, `.%2E`). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Whether the path has a `.` or `..` segment, raw or percent-encoded (`%2e`, any case), between
 * `/` or `\` (which URL parsers and browsers read as `/`). Browsers resolve dot segments before
 * they send a request, so only a hand-made request has one.
 */
export function hasDotSegment(path: string): boolean {
  return path.split(/[/\\]/).some((segment) => DOT_SEGMENT.test(segment));
}
