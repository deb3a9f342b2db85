import type { PostgresPool, PostgresPoolClient } from './pool.js';

/** A checked-out connection as pg makes it: an event emitter as well (`pg.PoolClient`). */
export interface EmittingClient extends PostgresPoolClient {
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

type ConnectCallback = (error: Error | undefined, client: PostgresPoolClient | undefined) => void;

/**
 * A connection of `pool` with `onError` listening on it from the moment the pool hands it out.
 * pg emits 'error' on a connection the server ends (a terminated backend, a restart, a dropped
 * socket), and the pool listens only while the connection is idle: with no listener Node ends
 * the process. pg's callback form hands the connection over synchronously, so the listener is on
 * before the socket can say anything more; awaiting `connect()` would leave a gap of a microtask
 * in which a message already read with the previous user's last answer finds nobody listening.
 * A pool whose `connect` only answers a promise (a wrapper) is used that way.
 */
export function checkOut(pool: PostgresPool, onError: (error: Error) => void): Promise<EmittingClient> {
  return new Promise((resolve, reject) => {
    const took = (client: PostgresPoolClient): void => {
      const emitting: EmittingClient = client;
      emitting.on?.('error', onError);
      resolve(client);
    };
    const returned = (pool.connect as unknown as (callback: ConnectCallback) => unknown)((error, client) => {
      if (error || !client) reject(error ?? new Error('The pool answered no connection'));
      else took(client);
    });
    if (returned && typeof (returned as Promise<PostgresPoolClient>).then === 'function') (returned as Promise<PostgresPoolClient>).then(took, reject);
  });
}
