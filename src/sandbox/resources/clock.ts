import { z } from 'zod';
import { isoNow, type SandboxContext } from '../context.js';
import { parseDuration } from '../clock.js';
import { ok } from '../http/response.js';
import type { Route } from '../http/router.js';
import { parseInput } from '../http/validate.js';

const advanceInput = z.strictObject({ advance: z.string({ error: 'must be a duration such as 30d, 2h, 90m or 45s' }) });

/**
 * Sandbox helpers: read and advance the clock (one for the whole sandbox: any account's key
 * moves every account's time); `GET /v1/me`, the account the test key belongs to.
 */
export function clockRoutes(context: SandboxContext, advance: (ms: number) => Promise<void>): Route[] {
  const clockView = () => ({ now: isoNow(context), frozen: context.clock.isFrozen });
  return [
    { method: 'GET', path: '/v1/sandbox/clock', handler: () => ok(clockView()) },
    {
      method: 'POST',
      path: '/v1/sandbox/clock',
      handler: async ({ body }) => {
        const ms = parseDuration(parseInput(advanceInput, body).advance, 'advance');
        await advance(ms);
        return ok(clockView());
      },
    },
    {
      method: 'GET',
      path: '/v1/me',
      handler: () => {
        const { account } = context;
        return ok({ id: account.user_id, email: account.email, business: account.business, subscription: { plan: account.plan, status: 'active' } });
      },
    },
  ];
}
