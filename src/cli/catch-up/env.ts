/** Where `acct-webhook catch-up` takes `--api-key` from when it is not given. */
export const API_KEY_ENV = 'ACCT_API_KEY';
/** Where `acct-webhook catch-up` takes `--base-url` from when it is not given. */
export const BASE_URL_ENV = 'ACCT_API_BASE_URL';
