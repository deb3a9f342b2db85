import { EVENT_CATALOG, type EventType } from '../events/catalog.js';
import type { ChosenGroup } from './events.js';
import { handlerFields } from '../events/handler-fields.js';
import type { TemplateVariables } from './template.js';

const INDENT = '  ';
/** Generated comments wrap here, like the rest of the templates. */
const COMMENT_WIDTH = 96;

/** `src/handlers/<group>.ts` */
export function handlerFilePath(group: ChosenGroup): string {
  return `src/handlers/${group.group}.ts`;
}

/** `registerInvoiceHandlers`, `registerUvaHandlers` … from the group's object name. */
export function registrationFunctionName(group: ChosenGroup): string {
  return `register${group.object.charAt(0).toUpperCase()}${group.object.slice(1)}Handlers`;
}

/** The variables of `templates/handlers/group.ts` for one group. */
export function groupFileVariables(group: ChosenGroup): TemplateVariables {
  return {
    description: commentLines(`${group.title}: handlers for ${group.types.map((type) => `\`${type}\``).join(', ')}.`),
    functionName: registrationFunctionName(group),
    handlers: group.types.map((type) => handlerCode(type, group.object)).join('\n\n'),
  };
}

/** The variables of `templates/handlers/index.ts`. */
export function handlerIndexVariables(groups: readonly ChosenGroup[]): TemplateVariables {
  return {
    imports: groups
      .map((group) => `import { ${registrationFunctionName(group)} } from './${group.group}.js';`)
      .join('\n'),
    eventList: groups.map((group) => ` * - ${group.title}: ${group.types.join(', ')}`).join('\n'),
    registrations: groups.map((group) => `${INDENT}${registrationFunctionName(group)}(webhooks);`).join('\n'),
  };
}

/**
 * One typed handler that logs the event's key fields, e.g.
 *
 *   // invoice.paid — the platform sends it when: payment is received.
 *   webhooks.on('invoice.paid', (event, { log }) => {
 *     const invoice = event.data.object;
 *     log.info({ id: invoice.id, amount: invoice.amount, … }, 'invoice paid');
 *   });
 */
function handlerCode(type: EventType, object: string): string {
  const { fields, logsChanges } = handlerFields(type);
  const logged = fields.map((field) => `${field}: ${object}.${field}`);
  // On an update the news is which fields changed; previous_attributes holds their old values.
  if (logsChanges) logged.push('changed: Object.keys(event.data.previous_attributes ?? {})');
  const lines = [
    `// ${type} — the platform sends it when: ${EVENT_CATALOG[type].emittedWhen}.`,
    `webhooks.on('${type}', (event, { log }) => {`,
    `${INDENT}const ${object} = event.data.object;`,
    `${INDENT}log.info(`,
    `${INDENT}${INDENT}{`,
    ...logged.map((entry) => `${INDENT.repeat(3)}${entry},`),
    `${INDENT}${INDENT}},`,
    `${INDENT}${INDENT}'${type.replace('.', ' ')}',`,
    `${INDENT});`,
    '});',
  ];
  return lines.map((line) => `${INDENT}${line}`).join('\n');
}

/** `text` as the lines of a block comment (` * …`), wrapped at word boundaries. */
function commentLines(text: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && ` * ${line} ${word}`.length > COMMENT_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.map((entry) => ` * ${entry}`).join('\n');
}
