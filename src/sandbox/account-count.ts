/* How many accounts a sandbox has: read by createSandbox's options and by the CLI's --accounts. */

/** How many accounts a sandbox has when `accounts` is not given. @default 1 */
export const DEFAULT_SANDBOX_ACCOUNTS = 1;
/** The most accounts one sandbox serves. @default 10 */
export const MAX_SANDBOX_ACCOUNTS = 10;
