import { constantTimeEqual } from './signature-scheme.js';
import {
  ED25519_SIGNATURE_BYTES,
  KEY_BYTES,
  V1,
  V1A,
  bytesOfBase64,
  signedMessage,
  standardMismatch,
  type PreparedStandardVerification,
  type StandardKeyEngine,
  type VerificationKey,
  type VerifiedStandardWebhook,
} from './standard-webhooks-scheme.js';

/*
 * Standard Webhooks on runtimes without Node's modules: WebCrypto's HMAC-SHA256 for `v1` and
 * its Ed25519 for `v1a` (Cloudflare Workers, Deno, Node.js 22+, current browsers). Keys are
 * imported once per list, on the first request, and reused.
 */

type WebKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** WebCrypto's engine for decoded verification keys: every match is a promise. */
export const webStandardKeys: StandardKeyEngine = (keys: readonly VerificationKey[]) => {
  let imported: Promise<WebKey[]> | undefined;
  const importAll = (): Promise<WebKey[]> =>
    (imported ??= Promise.all(
      keys.map((key) =>
        key.kind === 'hmac'
          ? crypto.subtle.importKey('raw', new Uint8Array(key.bytes), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
          : crypto.subtle.importKey('raw', new Uint8Array(key.bytes), { name: 'Ed25519' }, false, ['verify']),
      ),
    ).catch((error: unknown) => {
      // A failed import is tried again on the next request rather than remembered.
      imported = undefined;
      throw error;
    }));
  return {
    async match(prepared: PreparedStandardVerification): Promise<VerifiedStandardWebhook> {
      const webKeys = await importAll();
      const message = signedMessage(prepared.prefix, prepared.body);
      let hmacs: (Uint8Array | undefined)[] | undefined;
      let matched: { secretIndex: number; version: 'v1' | 'v1a' } | undefined;
      for (const claim of prepared.signatures) {
        if (claim.version !== V1 && claim.version !== V1A) continue;
        const bytes = bytesOfBase64(claim.value) ?? new Uint8Array(0);
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!;
          if (claim.version === V1 && key.kind === 'hmac') {
            hmacs ??= await Promise.all(
              keys.map(async (k, j) => (k.kind === 'hmac' ? new Uint8Array(await crypto.subtle.sign('HMAC', webKeys[j]!, message)) : undefined)),
            );
            // Every v1 claim is compared with every HMAC key over 32 bytes: no early exit.
            const same = bytes.byteLength === KEY_BYTES && constantTimeEqual(hmacs[i]!, bytes);
            if (same && matched === undefined) matched = { secretIndex: i, version: V1 };
          } else if (claim.version === V1A && key.kind === 'ed25519' && matched === undefined && bytes.byteLength === ED25519_SIGNATURE_BYTES) {
            if (await crypto.subtle.verify({ name: 'Ed25519' }, webKeys[i]!, new Uint8Array(bytes), message)) matched = { secretIndex: i, version: V1A };
          }
        }
      }
      if (matched === undefined) throw standardMismatch(prepared, keys);
      return { ...matched, id: prepared.id, timestamp: prepared.timestamp };
    },
  };
};
