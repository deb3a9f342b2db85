/** What the router needs of a route: a method and a path whose `:name` segments are parameters. */
export interface RoutePattern {
  method: string;
  /** `/deliveries/:id/retry`: segments starting with `:` are parameters. */
  path: string;
}

/** A matched route and its decoded path parameters. */
export interface RouteMatch<Route extends RoutePattern> {
  route: Route;
  params: Record<string, string>;
}

/**
 * The route for a method and path, for the dashboard and the sandbox: the first whose segments
 * all match (a parameter matches one non-empty segment, percent-decoded; one that does not
 * decode matches nothing). `undefined` when no path matches, `'method'` when a path matches but
 * not with this method. `HEAD` matches a `GET` route.
 *
 * @example
 * matchRoute([{ method: 'GET', path: '/deliveries/:id' }], 'GET', '/deliveries/dlv_1')?.params // { id: 'dlv_1' }
 */
export function matchRoute<Route extends RoutePattern>(routes: readonly Route[], method: string, path: string): RouteMatch<Route> | 'method' | undefined {
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
