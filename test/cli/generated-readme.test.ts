import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../scaffold/helpers.js';
import { runCommand, testSecret } from './helpers.js';
import { startReceiver, type TestReceiver } from './receivers.js';

/*
 * The generated project's README tells how to see a duplicate answer. Its command is run here as
 * written (the placeholders filled, the URL pointed at a real receiver), against what `trigger`
 * does today.
 */

const README = readFileSync(join(REPO_ROOT, 'templates', 'common', 'README.md'), 'utf8');
const secret = testSecret('readme');
let receiver: TestReceiver;
beforeAll(async () => {
  receiver = await startReceiver(secret);
});
afterAll(() => receiver.close());

/** The `npx acct-webhook trigger …` commands of the README section `heading`, as written. */
function triggerCommands(heading: string): string[] {
  const section = README.split(/^#+ /m).find((part) => part.startsWith(heading)) ?? '';
  return [...section.matchAll(/^npx acct-webhook (trigger .*)$/gm)].map((match) => match[1]!);
}

/** The command's words, as sh would split them here (no quotes inside words), for the test receiver. */
function argv(command: string): string[] {
  return command
    .replace('{{sampleEvent}}', 'invoice.paid')
    .replace('http://localhost:{{port}}{{webhookPath}}', receiver.url)
    .replace('"$WEBHOOK_SECRET"', secret)
    .split(' ');
}

describe('the generated README', () => {
  it('sends one sample a run, each with a fresh id: handled every time', async () => {
    const [command] = triggerCommands('Send yourself an event');
    expect(command).toBeDefined();
    for (let run = 0; run < 2; run++) expect((await runCommand(argv(command!))).exitCode).toBe(0);
    expect(receiver.outcomes.slice(-2).map((outcome) => outcome.outcome)).toEqual(['handled', 'handled']);
  });

  it('shows a duplicate answer the way it says: the same event id twice, the second "duplicate": true', async () => {
    const [command] = triggerCommands('See a duplicate answer');
    expect(command).toContain('--id ');
    const run = await runCommand(argv(command!));
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^\[1\/2\] 200 OK .*\n {2}\{.*"duplicate":false\}\n\[2\/2\] 200 OK .*\n {2}\{.*"duplicate":true\}\n$/);
    expect(receiver.outcomes.slice(-2).map((outcome) => outcome.outcome)).toEqual(['handled', 'duplicate']);
    for (const quoted of ['"duplicate":false', '"duplicate":true']) expect(README).toContain(`\`${quoted}\``);
  });
});
