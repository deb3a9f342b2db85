/* What the sandbox commands take: shared by the command definitions and the code that runs them. */

/** The sandbox's port when none is given (the platform's API is not on this machine). */
export const DEFAULT_SANDBOX_PORT = 4010;
export const DEFAULT_SANDBOX_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}/v1`;
/** Stands in for --api-key in `sandbox clock` and `sandbox faults`. */
export const SANDBOX_KEY_ENV = 'ACCT_SANDBOX_API_KEY';
/** The plans a seeded business can have. */
export const PLANS = ['starter', 'pro', 'business'] as const;

/** A fault as `--fault` names it, and the field of the API's faults object it sets. */
export interface FaultFlags {
  duplicate?: boolean;
  out_of_order?: { window: number };
  delay_ms?: number;
  timeout_first_attempts?: number;
  drop_first_attempts?: number;
}

export interface SandboxStartOptions {
  port: number;
  db?: string;
  seed?: number;
  apiKey?: string;
  accounts?: number;
  plan: (typeof PLANS)[number];
  fault: FaultFlags;
  deliveryTimeoutMs?: number;
  json?: boolean;
}

export interface SandboxClientOptions {
  url: string;
  apiKey?: string;
}
