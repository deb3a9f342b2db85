import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ScaffoldError } from './errors.js';
import type { ProjectFile } from './project-files.js';

/** Writes the rendered files into `directory`, creating it and its folders as needed. */
export function writeProject(directory: string, files: readonly ProjectFile[]): void {
  for (const file of files) {
    const target = join(directory, ...file.path.split('/'));
    try {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    } catch (error) {
      throw new ScaffoldError('WRITE_FAILED', `Cannot write ${target}: ${(error as Error).message}`, { file: target }, { cause: error });
    }
  }
}
