/*
 * HTML built from tagged templates that escape every interpolated value. Only `Html` values
 * (made by this module) pass through unchanged, so text from payloads, headers and URLs always
 * renders as text.
 */

/** Markup that is already safe: made by {@link html} or {@link trusted}. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/** What a template takes: text (escaped), numbers, markup, lists of those; null, undefined and false render nothing. */
export type Content = Html | string | number | boolean | null | undefined | readonly Content[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and for quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

function render(content: Content): string {
  if (content instanceof Html) return content.text;
  if (Array.isArray(content)) return content.map(render).join('');
  if (content === null || content === undefined || content === false || content === true) return '';
  return escapeHtml(String(content));
}

/** A template whose interpolations are escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly Content[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

/** Markup written in this module's own source, never from input. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
