/** `text` as one word for a POSIX shell: single-quoted, with embedded quotes closed and escaped. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
