import { isJsonObject, type JsonValue } from './json.js';

/*
 * YAML for JSON data, small enough to carry in the CLI (a YAML library would add a dependency
 * for this one output). Block style throughout; a string or key is written plain only when no
 * YAML 1.1 or 1.2 parser can read it as anything but that string (a letter first, then letters,
 * digits and `_ . / $ -`, never a word such as `yes` or `null`), and as a JSON string otherwise —
 * a JSON string is a valid YAML double-quoted scalar, once the characters YAML wants escaped are.
 */

const PLAIN = /^[A-Za-z_$][A-Za-z0-9_.$/-]*$/;
/** Words YAML 1.1 reads as booleans or null (YAML 1.2's core schema: true, false, null). */
const RESERVED: ReadonlySet<string> = new Set(['y', 'n', 'yes', 'no', 'true', 'false', 'on', 'off', 'null']);
/** Characters JSON leaves as they are but YAML does not allow unescaped: DEL, C1 controls, U+2028/9, BOM, non-characters. */
 
const YAML_UNPRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

function scalarString(text: string): string {
  if (PLAIN.test(text) && !RESERVED.has(text.toLowerCase())) return text;
  return JSON.stringify(text).replace(YAML_UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function scalar(value: Exclude<JsonValue, object>): string {
  if (typeof value === 'string') return scalarString(value);
  if (typeof value === 'number') return Object.is(value, -0) ? '0' : JSON.stringify(value);
  return String(value);
}

function isEmptyCollection(value: JsonValue): boolean {
  return Array.isArray(value) ? value.length === 0 : isJsonObject(value) && Object.keys(value).length === 0;
}

/** The lines of `value` as a block: each line unindented; nested blocks are indented by their parent. */
function block(value: JsonValue): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (typeof item !== 'object' || item === null || isEmptyCollection(item)) return [`- ${inline(item)}`];
      const [first = '', ...rest] = block(item);
      return [`- ${first}`, ...rest.map((line) => `  ${line}`)];
    });
  }
  if (isJsonObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => {
      const name = scalarString(key);
      if (typeof item !== 'object' || item === null || isEmptyCollection(item)) return [`${name}: ${inline(item)}`];
      return [`${name}:`, ...block(item).map((line) => `  ${line}`)];
    });
  }
  return [scalar(value)];
}

/** A scalar or an empty collection, on the line of its key or dash. */
function inline(value: JsonValue): string {
  if (Array.isArray(value)) return '[]';
  if (isJsonObject(value)) return '{}';
  return scalar(value);
}

/** `value` (JSON data) as a YAML document, ending with a newline. */
export function toYaml(value: JsonValue): string {
  return `${(typeof value === 'object' && value !== null && !isEmptyCollection(value) ? block(value) : [inline(value)]).join('\n')}\n`;
}
