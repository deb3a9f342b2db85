import type { HmacEngine, HmacKeys } from '../signing/signature-scheme.js';
import { verificationKeys, type StandardKeyCheck, type StandardKeyEngine } from '../signing/standard-webhooks-scheme.js';

/**
 * The keys one list of secrets verifies with, made once for it: the secrets, their HMAC (the
 * platform's scheme, node:crypto's or WebCrypto's), and with Standard Webhooks their decoded keys.
 */
export interface SecretKeys {
  secret: readonly string[];
  /** The HMAC under `secret`: node:crypto's on Node.js, WebCrypto's elsewhere. */
  hmacKeys: HmacKeys;
  /** The Standard Webhooks keys under `secret`; undefined with `scheme: 'svc'`. */
  standardKeys: StandardKeyCheck | undefined;
}

/** How keys are made from secrets on a platform: its HMAC and its Standard Webhooks engine. */
export interface KeyEngines {
  hmac: HmacEngine;
  standard: StandardKeyEngine;
}

/**
 * Makes the keys of a list of secrets. Throws the `WebhookVerificationError` of a secret that
 * Standard Webhooks cannot decode (not `whsec_`/`whpk_` base64), when its keys are needed.
 */
export function deriveKeys(secrets: readonly string[], withStandard: boolean, engines: KeyEngines): SecretKeys {
  return {
    secret: secrets,
    hmacKeys: engines.hmac(secrets),
    standardKeys: withStandard ? engines.standard(verificationKeys(secrets)) : undefined,
  };
}
