import { ScaffoldError } from './errors.js';

/** Values for a template's `{{name}}` placeholders. */
export type TemplateVariables = Readonly<Record<string, string>>;

const PLACEHOLDER = /\{\{(\w+)\}\}/g;
/** A line holding nothing but one placeholder (and indentation). */
const PLACEHOLDER_LINE = /^[ \t]*\{\{(\w+)\}\}[ \t]*\r?\n/gm;

/**
 * Fills in `{{name}}` placeholders. A placeholder alone on its line that renders empty takes its
 * line with it, so optional blocks leave no blank lines behind. A placeholder without a value is
 * a TEMPLATE_ERROR: a typo in a template fails every generation, not silently one user's file.
 */
export function renderTemplate(text: string, variables: TemplateVariables, source: string): string {
  const valueOf = (name: string): string => {
    if (!Object.hasOwn(variables, name)) {
      throw new ScaffoldError('TEMPLATE_ERROR', `Template ${source} uses {{${name}}}, which has no value`, { source, placeholder: name });
    }
    return variables[name]!;
  };
  return text
    .replace(PLACEHOLDER_LINE, (line, name: string) => (valueOf(name) === '' ? '' : line))
    .replace(PLACEHOLDER, (_match, name: string) => valueOf(name));
}
