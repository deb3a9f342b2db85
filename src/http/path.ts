/** The request path without its query string, without a trailing slash (`/` stays `/`). */
export function requestPath(url: string | undefined): string {
  const path = url ?? '/';
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}
