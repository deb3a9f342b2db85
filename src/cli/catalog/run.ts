import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { catalogDocuments } from '../../catalog/documents.js';
import { catalogDocumentText, catalogFiles, type CatalogFormat } from '../../catalog/files.js';
import type { CommandContext } from '../context.js';
import { CliError } from '../errors.js';

/** Prints the document of `format`, or writes its files into `out` and lists them. */
export async function runCatalog(context: CommandContext, options: { format: CatalogFormat; out?: string; yaml?: boolean }): Promise<void> {
  const documents = catalogDocuments({ version: context.io.version });
  const yaml = options.yaml === true;
  if (options.out === undefined) {
    context.output.raw(catalogDocumentText(documents, options.format, { yaml }));
    return;
  }
  const directory = options.out;
  try {
    await mkdir(directory, { recursive: true });
    for (const file of catalogFiles(documents, options.format, { yaml })) {
      const path = join(directory, file.path);
      await writeFile(path, file.content);
      context.output.line(path);
    }
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new CliError('INVALID_OPTION', `--out: cannot write into ${directory}: ${code === 'ENOTDIR' || code === 'EEXIST' ? 'a file of that name is in the way' : message}`, {
      option: '--out',
      errno: code,
    });
  }
}
