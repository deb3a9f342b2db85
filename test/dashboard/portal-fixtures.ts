import { onTestFinished } from 'vitest';
import type { DispatcherOptions } from '../../src/dispatcher.js';
import { createPortalLink, portalNodeHandler, type PortalOptions } from '../../src/dashboard/index.js';
import { Receiver, testDispatcher } from '../dispatcher/fixtures.js';
import { close, listen } from '../helpers/server.js';
import { Client } from './fixtures.js';

export const PORTAL_BASE = '/settings/webhooks';
export const PORTAL_KEY = 'portal-test-key-0123456789abcdefghijklmnop';

export interface PortalSetup {
  dispatcher: ReturnType<typeof testDispatcher>;
  origin: string;
  targetUrl: string;
  target: Receiver;
  /** A link for `business_id` on this portal. */
  link(business_id: string, options?: { access?: 'read' | 'manage'; expiresInMs?: number; key?: string; path?: string; clock?: () => number }): string;
  /** A client (a browser without JavaScript) that opened a link of `business_id`. */
  signedIn(business_id: string, access?: 'read' | 'manage'): Promise<Client>;
}

/** A dispatcher on SQLite, a target on loopback and the portal on another loopback port; all closed after the test. */
export async function portalSetup(options: { portal?: Partial<PortalOptions>; dispatcher?: DispatcherOptions } = {}): Promise<PortalSetup> {
  const dispatcher = testDispatcher(options.dispatcher);
  const target = new Receiver();
  const targetServer = await listen(target.listener);
  onTestFinished(() => close(targetServer.server));
  const server = await listen(portalNodeHandler({ dispatcher, key: PORTAL_KEY, basePath: PORTAL_BASE, logger: false, ...options.portal }));
  onTestFinished(() => close(server.server));
  const link: PortalSetup['link'] = (business_id, { key = PORTAL_KEY, path = PORTAL_BASE, ...rest } = {}) => createPortalLink({ key, business_id, baseUrl: `${server.url}${path}`, ...rest });
  return {
    dispatcher,
    origin: server.url,
    target,
    targetUrl: `${targetServer.url}/hooks`,
    link,
    async signedIn(business_id, access = 'manage') {
      const client = new Client(server.url);
      const opened = await client.get(link(business_id, { access }).slice(server.url.length));
      if (opened.status !== 200) throw new Error(`the link did not open the portal: ${opened.status}`);
      return client;
    },
  };
}

