/*
 * Bytes on every runtime the receiver runs on. Node.js has Buffer, a Uint8Array with more
 * methods, and the package's public types name it (a handler's `context.rawBody`, a stored
 * `raw_body`); Cloudflare Workers without nodejs_compat have no Buffer. These helpers make a
 * Buffer where there is one and a plain Uint8Array where there is none, so the same code runs
 * on both; whatever reads the bytes uses only what Uint8Array has.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** Node's Buffer, when this runtime has it (looked up once). */
const NodeBuffer: typeof Buffer | undefined = typeof Buffer === 'function' ? Buffer : undefined;

/**
 * The bytes of a body as a Buffer (a view, not a copy, of bytes already in a Uint8Array), or as
 * a Uint8Array on a runtime without Buffer. Typed as Buffer, which it is wherever Node's API can be called.
 */
export function asBuffer(body: string | Uint8Array | ArrayBuffer | undefined): Buffer {
  if (NodeBuffer === undefined) return plainBytes(body) as Buffer;
  if (body === undefined) return NodeBuffer.alloc(0);
  if (typeof body === 'string') return NodeBuffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return NodeBuffer.isBuffer(body) ? body : NodeBuffer.from(body.buffer, body.byteOffset, body.byteLength);
  return NodeBuffer.from(body);
}

function plainBytes(body: string | Uint8Array | ArrayBuffer | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array(0);
  if (typeof body === 'string') return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

/** Chunks as one array of `size` bytes (the chunk itself when there is one). */
export function concatBytes(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  if (NodeBuffer !== undefined) return NodeBuffer.concat(chunks, size);
  const joined = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}

/** UTF-8 bytes as text (malformed sequences become U+FFFD). */
export function utf8Text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** How many bytes `text` takes in UTF-8 (a lone surrogate counts as U+FFFD's three). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < bytes.byteLength; i++) hex += HEX[bytes[i]!];
  return hex;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
