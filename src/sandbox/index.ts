/** acct-webhook/sandbox: the platform's sandbox on this machine. This file only re-exports. */
export { createSandbox, type Sandbox } from './sandbox.js';
export type { SandboxOptions } from './options.js';
export type { SandboxTestAccount } from './accounts.js';
export type { Faults, FaultsInput } from './faults.js';
export { SandboxError, type SandboxErrorCode } from './errors.js';
export type { SandboxPlan } from './http/rate-limit.js';
export type { SandboxWebhookStatusChange } from './webhook-status.js';
