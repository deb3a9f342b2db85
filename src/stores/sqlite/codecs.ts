import { AS_IS, type BackendCodecs } from '../../ports/fields.js';

/** How better-sqlite3 keeps each kind of field: flags as 0 or 1, lists and maps as JSON text, the rest as they are. */
export const SQLITE_CODECS: BackendCodecs = {
  value: AS_IS,
  integer: AS_IS,
  number: AS_IS,
  time: AS_IS,
  text: AS_IS,
  bytes: AS_IS,
  flag: { read: (stored) => stored === 1, write: (flag) => (flag ? 1 : 0) },
  json: { read: (stored) => JSON.parse(stored as string) as unknown, write: (value) => JSON.stringify(value) },
};
