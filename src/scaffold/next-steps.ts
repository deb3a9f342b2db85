import { relative } from 'node:path';
import { PACKAGE_MANAGERS } from './choices.js';
import type { GitOutcome } from './git.js';
import type { ProjectOptions } from './project-options.js';

/** What the user reads when the project is ready: what was made, and the commands to run next. */
export function nextSteps(options: ProjectOptions, cwd: string, git: GitOutcome | undefined): string {
  const commands = PACKAGE_MANAGERS[options.packageManager];
  const where = relative(cwd, options.directory);
  const steps = [
    ...(where === '' ? [] : [`cd ${where.includes(' ') ? JSON.stringify(where) : where}`]),
    ...(options.install ? [] : [commands.install]),
    'cp .env.example .env      # then set WEBHOOK_SECRET to the webhook\'s whsec_… secret',
    `${commands.run} dev`,
    `${commands.test}`,
  ];
  return [
    `Created ${options.projectName} in ${options.directory}: ${options.adapter}, ${options.store} store, ${options.events.length} event types.`,
    ...gitNote(git),
    '',
    'Next steps:',
    ...steps.map((step) => `  ${step}`),
    '',
    'README.md explains how to send yourself a signed sample event.',
    '',
  ].join('\n');
}

function gitNote(git: GitOutcome | undefined): string[] {
  switch (git) {
    case 'git-unavailable':
      return ['git was not found, so no repository was initialised.'];
    case 'init-failed':
      return ['git init failed, so no repository was initialised.'];
    case 'inside-a-repository':
      return ['The project lies inside an existing git repository, so no new one was initialised.'];
    case 'initialised':
    case undefined:
      return [];
  }
}
