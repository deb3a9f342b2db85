import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { ScaffoldError } from './errors.js';
import { groupEvents } from './events.js';
import type { GeneratorPackage } from './generator-package.js';
import { groupFileVariables, handlerFilePath, handlerIndexVariables } from './handler-code.js';
import { projectPackageJson } from './package-json.js';
import type { ProjectOptions } from './project-options.js';
import { projectVariables } from './project-variables.js';
import { renderTemplate, type TemplateVariables } from './template.js';

/** One file of the generated project: its path inside the project (with `/`) and its text. */
export interface ProjectFile {
  path: string;
  content: string;
}

/**
 * Every file of the project, rendered in memory: a template problem is found before anything
 * is written. Template folders are listed in templates/README.md.
 */
export function renderProject(options: ProjectOptions, generator: GeneratorPackage): ProjectFile[] {
  const templates = generator.templatesDirectory;
  const groups = groupEvents(options.events);
  const variables = projectVariables(options, groups, generator);
  const copied = ['common', `adapters/${options.adapter}`, `stores/${options.store}`].flatMap((folder) =>
    renderFolder(join(templates, folder), variables),
  );
  const handlers = groups.map((group) => ({
    path: handlerFilePath(group),
    content: renderFile(join(templates, 'handlers', 'group.ts'), { ...variables, ...groupFileVariables(group) }),
  }));
  const handlerIndex = {
    path: 'src/handlers/index.ts',
    content: renderFile(join(templates, 'handlers', 'index.ts'), { ...variables, ...handlerIndexVariables(groups) }),
  };
  const packageJson = { path: 'package.json', content: `${JSON.stringify(projectPackageJson(options, generator), null, 2)}\n` };
  return [packageJson, ...copied, ...handlers, handlerIndex].sort((a, b) => a.path.localeCompare(b.path));
}

/** The files under `folder`, rendered, at their paths relative to it (dotfile names restored). */
function renderFolder(folder: string, variables: TemplateVariables): ProjectFile[] {
  return listFiles(folder).map((file) => ({
    path: targetPath(relative(folder, file)),
    content: renderFile(file, variables),
  }));
}

function listFiles(folder: string): string[] {
  try {
    return readdirSync(folder, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
  } catch (error) {
    throw new ScaffoldError('TEMPLATE_ERROR', `Cannot read the templates in ${folder}`, { folder }, { cause: error });
  }
}

function renderFile(file: string, variables: TemplateVariables): string {
  return renderTemplate(readFileSync(file, 'utf8'), variables, file);
}

/**
 * `_gitignore` → `.gitignore`, `_github/` → `.github/`: npm leaves some dotfiles out of a
 * package, so templates name them with `_` and the leading `_` of a file or folder name becomes a
 * dot on the way out.
 */
export function targetPath(templatePath: string): string {
  return posix.join(...templatePath.split(sep).map((name) => (name.startsWith('_') ? `.${name.slice(1)}` : name)));
}
