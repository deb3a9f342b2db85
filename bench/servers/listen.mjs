import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let dir;

/** A fresh SQLite file in a temp directory removed when the server stops. */
export function tempDatabase() {
  dir ??= mkdtempSync(join(tmpdir(), 'acct-webhook-bench-'));
  return join(dir, 'events.db');
}

/**
 * Listens on a free loopback port, prints {"port"}, and exits cleanly on SIGTERM, after
 * `cleanUp` (a store to close, a schema to drop).
 */
export function listen(appOrServer, cleanUp = async () => {}) {
  const server = typeof appOrServer === 'function' ? createServer(appOrServer) : appOrServer;
  server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      cleanUp().then(
        () => process.exit(0),
        (error) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  });
}
