import { Command } from 'commander';
import type { CommandContext } from './context.js';
import { examples } from './help.js';
import { oneOf } from './options.js';

/** The formats of `--format`; the same list as src/catalog/files.ts, which the action loads only when it runs. */
const FORMATS = ['openapi', 'asyncapi', 'json-schema'] as const;

interface CatalogOptions {
  format: (typeof FORMATS)[number];
  out?: string;
  yaml?: boolean;
}

/**
 * `acct-webhook catalog`: the event catalog as OpenAPI 3.1, AsyncAPI 3.0 or JSON Schema 2020-12,
 * for other languages and tools. The generator is loaded when the command runs.
 */
export function catalogCommand(context: CommandContext): Command {
  return new Command('catalog')
    .summary('print the event catalog as OpenAPI, AsyncAPI or JSON Schema, for other languages and tools')
    .description(
      'Generates the documents from the schemas this package validates events with: OpenAPI 3.1 (a webhooks entry per ' +
        'event type), AsyncAPI 3.0 (a message per event type) or JSON Schema 2020-12 (one schema per event type and one ' +
        'for the union of all). Prints the document on stdout — for JSON Schema the union, which embeds the others — or, ' +
        'with --out, writes the files into a directory: openapi.json, asyncapi.json, or event.json and one <type>.json per ' +
        'event type. The same files ship in the package under schemas/.',
    )
    .requiredOption('--format <format>', FORMATS.join(', '), oneOf('--format', FORMATS))
    .option('--out <dir>', 'write the files into <dir> (created when missing; files of the same name are replaced) and list them')
    .option('--yaml', 'YAML instead of JSON (files named .yaml)')
    .addHelpText(
      'after',
      examples(
        ['acct-webhook catalog --format openapi > webhooks.openapi.json', 'the OpenAPI document, for Redocly, Scalar or Svix'],
        ['acct-webhook catalog --format asyncapi --yaml', 'the AsyncAPI document as YAML'],
        ['acct-webhook catalog --format json-schema --out schemas', 'event.json and a schema file per event type into ./schemas'],
      ),
    )
    .action(async (options: CatalogOptions) => {
      const { runCatalog } = await import('./catalog/run.js');
      await runCatalog(context, options);
    });
}
