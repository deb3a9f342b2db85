import { createHash } from 'node:crypto';
import type { WakeUpConnectionChange, WakeUps, WakeUpSubscription } from '../../ports/wake-ups.js';
import { WAKE_UP_RECONNECT_MAX_MS, WAKE_UP_RECONNECT_MIN_MS } from './postgres-defaults.js';
import { checkOut } from './check-out.js';
import type { PostgresPool, PostgresPoolClient } from './pool.js';

/** A pooled connection as pg makes it: an event emitter as well (`pg.PoolClient`). */
interface ListeningClient extends PostgresPoolClient {
  on(event: 'notification', listener: (message: { channel: string }) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
}

/**
 * The NOTIFY channel of one kind of work on one schema: a short name derived from the schema's
 * (channel names are identifiers of at most 63 bytes), so every process on the schema agrees.
 */
export function wakeUpChannel(kind: 'dispatch' | 'inbox', schema: string): string {
  return `acct_webhook_${kind}_${createHash('sha256').update(schema).digest('hex').slice(0, 16)}`;
}

/** `SELECT pg_notify(…)` for a statement that stores work: delivered when its transaction commits. */
export function notifySql(channel: string): string {
  return `pg_notify('${channel}', '')`;
}

/**
 * LISTEN on `channel` with one connection of `pool`, held while subscribed. A connection that
 * breaks (server restart, failover, a terminated backend) is released, reported, and made again
 * with a backoff from 250 ms to 30 s; once listening again the subscriber is woken, since work
 * may have been stored while nobody listened. `listen` resolves after the first try either way.
 */
export function postgresWakeUps(pool: PostgresPool, channel: string): WakeUps {
  return {
    async listen(onWake, onConnection): Promise<WakeUpSubscription> {
      let closed = false;
      let current: ListeningClient | undefined;
      let timer: NodeJS.Timeout | undefined;
      let delay = WAKE_UP_RECONNECT_MIN_MS;
      const listeners = new Map<ListeningClient, { notification: (message: { channel: string }) => void; error: (error?: Error) => void; end: () => void }>();

      /** Takes this module's listeners off a connection and gives it back (destroyed, when `destroy`). */
      const letGo = (client: ListeningClient, destroy: boolean): void => {
        const handlers = listeners.get(client);
        listeners.delete(client);
        if (handlers) {
          client.removeListener('notification', handlers.notification);
          client.removeListener('end', handlers.end);
          // Kept until the pool has its own listener on again: an 'error' with none ends the process.
          client.release(destroy);
          client.removeListener('error', handlers.error);
        }
      };

      const report = (change: WakeUpConnectionChange): void => {
        try {
          onConnection(change);
        } catch {
          // A throwing logger must not stop the reconnection.
        }
      };

      const lost = (client: ListeningClient | undefined, error: unknown): void => {
        if (client) {
          if (current !== client) return;
          current = undefined;
          letGo(client, true);
        }
        if (closed) return;
        report({ state: 'lost', error, retryInMs: delay });
        timer = setTimeout(() => void connect(true), delay);
        timer.unref();
        delay = Math.min(delay * 2, WAKE_UP_RECONNECT_MAX_MS);
      };

      async function connect(again: boolean): Promise<void> {
        let client: ListeningClient | undefined;
        try {
          // Listening from the hand-over on (see checkOut); an error before our handlers are on counts as lost.
          let early: Error | undefined;
          const onEarly = (error: Error): void => {
            early ??= error;
          };
          client = (await checkOut(pool, onEarly)) as ListeningClient;
          const mine = client;
          const handlers = {
            notification: (message: { channel: string }) => {
              if (message.channel === channel) onWake();
            },
            error: (error?: Error) => lost(mine, error),
            end: () => lost(mine, new Error('The LISTEN connection ended')),
          };
          listeners.set(client, handlers);
          client.on('notification', handlers.notification);
          client.on('error', handlers.error);
          client.on('end', handlers.end);
          client.removeListener('error', onEarly);
          current = client;
          if (early) throw early;
          await client.query(`LISTEN ${channel}`);
        } catch (error) {
          // Its 'error' event reported it already (and let it go), or close() took it.
          if (client && (!listeners.has(client) || current !== client)) return;
          if (client) {
            current = undefined;
            letGo(client, true);
          }
          lost(undefined, error);
          return;
        }
        if (closed) return;
        delay = WAKE_UP_RECONNECT_MIN_MS;
        if (again) {
          report({ state: 'restored' });
          onWake();
        }
      }

      await connect(false);
      return {
        async close() {
          closed = true;
          clearTimeout(timer);
          const client = current;
          current = undefined;
          if (!client) return;
          const unlistened = await client.query(`UNLISTEN ${channel}`).then(
            () => true,
            () => false,
          );
          letGo(client, !unlistened);
        },
      };
    },
  };
}
