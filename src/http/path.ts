/** The request path without its query string, without a trailing slash (`/` stays `/`). */
export function requestPath(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}

/**
 * The path of a request URL as frameworks give it — a path with its query (node:http's
 * `req.url`) or an absolute URL (Fetch's `request.url`) — without the query, without a trailing
 * slash, as sent (not decoded). `''` when there is none.
 */
export function urlPath(url: string | undefined): string {
  if (url === undefined || url === '') return '';
  if (url.startsWith('/')) return requestPath(url);
  try {
    return requestPath(new URL(url).pathname);
  } catch {
    return '';
  }
}
