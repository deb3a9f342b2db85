import { createRequire } from 'node:module';

/**
 * The version of the installed acct-webhook, from its own package.json (the package refers to
 * itself by name through its exports map); undefined where that file is not at hand (an
 * application bundled without node_modules).
 */
export function installedVersion(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url)('acct-webhook/package.json') as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}
