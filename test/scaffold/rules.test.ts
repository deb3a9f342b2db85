import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_CATALOG, EVENT_TYPES } from '../../src/events/catalog.js';
import { DEFAULT_PATH } from '../../src/receiver/options.js';
import { RECEIVER_PATH } from '../../src/scaffold/project-defaults.js';
import { ScaffoldError } from '../../src/scaffold/errors.js';
import { parseEventList } from '../../src/scaffold/events.js';
import { handlerFields } from '../../src/events/handler-fields.js';
import { MAX_PACKAGE_NAME_LENGTH, packageNameProblem } from '../../src/scaffold/package-name.js';
import { targetPath } from '../../src/scaffold/project-files.js';
import { canPrompt, detectPackageManager } from '../../src/scaffold/resolve-options.js';
import { renderTemplate } from '../../src/scaffold/template.js';

describe('npm package names', () => {
  it.each(['my-receiver', 'receiver2', 'a.b', 'x_y', '@acme/receiver', 'a'.repeat(MAX_PACKAGE_NAME_LENGTH)])('accepts %s', (name) => {
    expect(packageNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['upper case', 'MyReceiver'],
    ['a space', 'my receiver'],
    ['leading space', ' receiver'],
    ['leading dot', '.hidden'],
    ['leading underscore', '_private'],
    ['a Node.js built-in', 'http'],
    ['a Node.js built-in with a slash', 'fs/promises'],
    ['reserved', 'node_modules'],
    ['reserved file name', 'favicon.ico'],
    ['too long', 'a'.repeat(MAX_PACKAGE_NAME_LENGTH + 1)],
    ['not URL-safe', 'café'],
    ['special characters', 'wow!'],
    ['a scope without a name', '@acme'],
    ['an empty scope', '@/receiver'],
    ['a scoped name with a leading underscore', '@acme/_receiver'],
    ['a slash outside a scope', 'acme/receiver'],
  ])('refuses a name with %s', (_case, name) => {
    expect(packageNameProblem(name)).toEqual(expect.any(String));
  });
});

describe('event lists', () => {
  it('expands patterns, drops repeats and keeps the catalog order', () => {
    expect(parseEventList(' uva.rejected , invoice.* ,invoice.paid')).toEqual([
      ...EVENT_TYPES.filter((type) => type.startsWith('invoice.')),
      'uva.rejected',
    ]);
    expect(parseEventList('*')).toEqual([...EVENT_TYPES]);
  });

  it.each(['invoice.payed', 'invoice', 'invoices.*', '', ' , '])('refuses %j with UNKNOWN_EVENT_TYPE', (list) => {
    expect(() => parseEventList(list)).toThrow(expect.objectContaining({ code: 'UNKNOWN_EVENT_TYPE' }));
  });
});

describe('what a generated handler logs', () => {
  it.each(EVENT_TYPES)('%s: the object id first, and only fields its sample object has', (type) => {
    const { fields } = handlerFields(type);
    expect(fields[0]).toBe('id');
    const sample: object = EVENT_CATALOG[type].sample;
    for (const field of fields) expect(sample).toHaveProperty(field);
  });

  it('adds what the transition guarantees: paid_at on invoice.paid, failure on payment.failed, rejection on uva.rejected', () => {
    expect(handlerFields('invoice.paid').fields).toContain('paid_at');
    expect(handlerFields('invoice.created').fields).not.toContain('paid_at');
    expect(handlerFields('payment.failed').fields).toContain('failure');
    expect(handlerFields('uva.rejected').fields).toEqual(expect.arrayContaining(['period', 'rejection']));
  });

  it('logs which fields changed on updates without a transition of their own', () => {
    expect(handlerFields('customer.updated').logsChanges).toBe(true);
    expect(handlerFields('subscription.updated').logsChanges).toBe(true);
    expect(handlerFields('invoice.paid').logsChanges).toBe(false);
    expect(handlerFields('customer.created').logsChanges).toBe(false);
  });
});

describe('templates', () => {
  it('fills placeholders and drops the line of an empty one standing alone', () => {
    expect(renderTemplate('a={{a}}\n  {{empty}}\nb\n', { a: '1', empty: '' }, 'test')).toBe('a=1\nb\n');
  });

  it('fails with TEMPLATE_ERROR on a placeholder without a value', () => {
    expect(() => renderTemplate('{{missing}}', {}, 'test')).toThrow(ScaffoldError);
    expect(() => renderTemplate('{{missing}}', {}, 'test')).toThrow(expect.objectContaining({ code: 'TEMPLATE_ERROR' }));
  });

  it('restores dotfile names from their _ form', () => {
    expect(targetPath('_gitignore')).toBe('.gitignore');
    expect(targetPath('_env.example')).toBe('.env.example');
    expect(targetPath('src/app.ts')).toBe('src/app.ts');
    expect(targetPath(join('_github', 'workflows', 'ci.yml'))).toBe('.github/workflows/ci.yml');
  });
});

describe('when to ask', () => {
  it('asks only on a terminal (stdin and stdout), without --yes and without CI', () => {
    expect(canPrompt(false, true, true, {})).toBe(true);
    expect(canPrompt(true, true, true, {})).toBe(false);
    expect(canPrompt(false, false, true, {})).toBe(false);
    expect(canPrompt(false, true, false, {})).toBe(false);
    expect(canPrompt(false, true, true, { CI: 'true' })).toBe(false);
    expect(canPrompt(false, true, true, { CI: '1' })).toBe(false);
    expect(canPrompt(false, true, true, { CI: 'false' })).toBe(true);
    expect(canPrompt(false, true, true, { CI: '' })).toBe(true);
  });

  it('defaults to the package manager that started it', () => {
    expect(detectPackageManager({ npm_config_user_agent: 'pnpm/10.4.1 npm/? node/v20.20.2 linux x64' })).toBe('pnpm');
    expect(detectPackageManager({ npm_config_user_agent: 'yarn/1.22.22 npm/? node/v20.20.2 linux x64' })).toBe('yarn');
    expect(detectPackageManager({ npm_config_user_agent: 'npm/11.19.1 node/v20.20.2 linux x64' })).toBe('npm');
    expect(detectPackageManager({})).toBe('npm');
  });
});

describe('the receiver the templates rely on', () => {
  it('answers at the path the generated README and tests use', () => {
    expect(RECEIVER_PATH).toBe(DEFAULT_PATH);
  });
});
