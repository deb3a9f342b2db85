import { AS_IS, type BackendCodecs } from '../../ports/fields.js';
import { int8, readInt8 } from './int8.js';
import { decodeText, encodeText } from './text-codec.js';

/** How pg keeps each kind of field: bigint milliseconds, text escaped where it came from outside, json. */
export const POSTGRES_CODECS: BackendCodecs = {
  value: AS_IS,
  integer: AS_IS,
  number: AS_IS,
  flag: AS_IS,
  bytes: AS_IS,
  time: { read: (stored, column) => readInt8(stored, column), write: (ms, column) => int8(ms as number, column) },
  // Text from outside may hold what PostgreSQL text cannot (U+0000): stored escaped.
  text: { read: (stored) => decodeText(stored as string), write: (text) => encodeText(text as string) },
  // pg parses json columns; a pool with its own type parsers may hand over the text instead.
  json: { read: (stored) => (typeof stored === 'string' ? (JSON.parse(stored) as unknown) : stored), write: (value) => JSON.stringify(value) },
};
