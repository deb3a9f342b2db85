import type { IncomingMessage } from 'node:http';
import { formOf, type ExpressDashboardHandler } from './express.js';
import { fetchHandlerOf, type DashboardFetchHandler } from './fetch.js';
import { nodeListenerOf, readForm, type DashboardNodeHandler } from './node.js';
import { buildPortal } from './portal.js';
import { resolvePortalOptions, type PortalOptions } from './portal-options.js';

/**
 * The portal as Express middleware: mount it under `basePath`; requests outside it go to `next`.
 * @example
 * app.use(portal({ dispatcher, key: process.env.PORTAL_KEY!, basePath: '/settings/webhooks', frameAncestors: ['https://app.example.com'] }));
 */
export function portal(options: PortalOptions): ExpressDashboardHandler {
  return nodeListenerOf(buildPortal(resolvePortalOptions(options, 'portal')), formOf);
}

/**
 * The portal as a node:http listener (Connect-style `next` optional).
 * @example
 * http.createServer(portalNodeHandler({ dispatcher, key, basePath: '/portal' })).listen(3000, '127.0.0.1');
 */
export function portalNodeHandler(options: PortalOptions): DashboardNodeHandler {
  return nodeListenerOf<IncomingMessage>(buildPortal(resolvePortalOptions(options, 'portalNodeHandler')), readForm);
}

/**
 * The portal for Fetch-API frameworks (Hono, Workers-style handlers); requests outside `basePath` get 404.
 * @example
 * const webhooks = portalFetchHandler({ dispatcher, key, basePath: '/portal' });
 * app.all('/portal/*', (c) => webhooks(c.req.raw));   // Hono
 */
export function portalFetchHandler(options: PortalOptions): DashboardFetchHandler {
  return fetchHandlerOf(buildPortal(resolvePortalOptions(options, 'portalFetchHandler')));
}
