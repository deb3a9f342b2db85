/**
 * Help texts. `acct-webhook --help` must start fast, so it loads nothing but commander and the
 * command definitions; a subcommand's help may list the catalog's event types, which are loaded
 * (with zod) only when such help is asked for.
 */
export interface HelpResources {
  /** The catalog's event types; present only when a subcommand's help is being shown. */
  eventTypes?: readonly string[];
}

const HELP_FLAGS: ReadonlySet<string> = new Set(['--help', '-h']);

/** The resources the help being asked for needs: the event types for a subcommand's help. */
export async function loadHelpResources(argv: readonly string[]): Promise<HelpResources> {
  const wantsHelp = argv.some((arg) => HELP_FLAGS.has(arg)) || argv[0] === 'help';
  const names = argv.filter((arg) => !arg.startsWith('-') && arg !== 'help');
  if (!wantsHelp || names.length === 0) return {};
  const { EVENT_TYPES } = await import('../events/catalog.js');
  return { eventTypes: EVENT_TYPES };
}

/** An "Examples:" section: each command with what it does. */
export function examples(...lines: readonly (readonly [command: string, what: string])[]): string {
  return `\nExamples:\n${lines.map(([command, what]) => `  # ${what}\n  $ ${command}\n`).join('')}`;
}

/** The event types, wrapped, for the help of commands that take one. */
export function eventTypesHelp(resources: HelpResources): string {
  if (!resources.eventTypes) return '';
  const lines: string[] = [];
  let line = ' ';
  for (const type of resources.eventTypes) {
    if (line.length + type.length + 1 > HELP_WIDTH) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${type}`;
  }
  lines.push(line);
  return `\nEvent types (${resources.eventTypes.length}; patterns such as invoice.* select a group):\n${lines.join('\n')}\n`;
}

const HELP_WIDTH = 88;
