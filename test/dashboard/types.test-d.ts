import type { IncomingMessage } from 'node:http';
import { describe, expectTypeOf, it } from 'vitest';
import { dashboard, dashboardFetchHandler, dashboardNodeHandler, type DashboardOptions, type ExpressDashboardRequest } from '../../src/dashboard/index.js';
import type { Dispatcher } from '../../src/dispatcher.js';

declare const dispatcher: Dispatcher;

describe('dashboard types', () => {
  it('authorize gets each framework\'s own request', () => {
    dashboard({ dispatcher, authorize: (req) => {
        expectTypeOf(req).toEqualTypeOf<ExpressDashboardRequest>();
        return true;
      } });
    dashboardNodeHandler({ dispatcher, authorize: (req) => {
        expectTypeOf(req).toEqualTypeOf<IncomingMessage>();
        return true;
      } });
    dashboardFetchHandler({ dispatcher, authorize: (request) => {
        expectTypeOf(request).toEqualTypeOf<Request>();
        return true;
      } });
  });

  it('an Express app can name the request its session middleware makes', () => {
    interface SessionRequest extends ExpressDashboardRequest {
      user?: { role: string };
    }
    dashboard<SessionRequest>({ dispatcher, authorize: (req) => req.user?.role === 'admin' });
  });

  it('authorize is required and answers a boolean, also asynchronously', () => {
    // @ts-expect-error authorize is required: there is no default that opens the dashboard
    dashboardNodeHandler({ dispatcher });
    // @ts-expect-error authorize answers a boolean
    dashboardNodeHandler({ dispatcher, authorize: () => 'yes' });
    dashboardNodeHandler({ dispatcher, authorize: () => Promise.resolve(true) });
    expectTypeOf<DashboardOptions['basePath']>().toEqualTypeOf<string | undefined>();
  });
});
