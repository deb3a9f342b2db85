/** acct-webhook/dashboard: the delivery dashboard, mountable in Express, node:http and Fetch-API apps. This file only re-exports. */
export { dashboard, type ExpressDashboardHandler, type ExpressDashboardRequest } from './express.js';
export { dashboardNodeHandler, type DashboardNodeHandler } from './node.js';
export { dashboardFetchHandler, type DashboardFetchHandler } from './fetch.js';
export { DashboardError, type DashboardErrorCode } from './errors.js';
export type { Authorize, DashboardOptions } from './options.js';
export type { RegistrationName, RegistrationNamer } from './registration-name.js';
export { portal, portalNodeHandler, portalFetchHandler } from './portal-adapters.js';
export { createPortalLink, DEFAULT_PORTAL_LINK_EXPIRES_MS, PORTAL_SESSION_MS, type PortalAccess, type PortalLinkOptions } from './portal-link.js';
export type { PortalColor, PortalOptions, PortalTheme } from './portal-options.js';
