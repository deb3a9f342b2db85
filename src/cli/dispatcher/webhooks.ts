import { Command } from 'commander';
import type { WebhookRegistration, WebhookStatus } from '../../dispatcher/records.js';
import { MAX_ROTATION_GRACE_MS } from '../../dispatcher/registration-rules.js';
import { SIGNING_ALGORITHMS, WEBHOOK_SCHEMES, type SigningAlgorithm, type WebhookScheme } from '../../ports/dispatch-statuses.js';
import type { UpdateWebhookInput } from '../../dispatcher/registrations.js';
import { MAX_REPLAY_EVENTS, type ReplayOptions } from '../../dispatcher/replay.js';
import type { CommandContext } from '../context.js';
import { jsonOption } from '../common-options.js';
import { CliError } from '../errors.js';
import { examples } from '../help.js';
import { collect, duration, isoTime, nonEmpty, oneOf } from '../options.js';
import { renderTable } from '../table.js';
import { tableTime } from '../time-format.js';
import { allowsInsecureUrls, withDispatcher } from './shared.js';

const WEBHOOK_STATUSES: readonly WebhookStatus[] = ['active', 'disabled'];
/** What `webhooks add` subscribes to without --events: everything. */
export const DEFAULT_WEBHOOK_EVENTS = '*';

interface WebhookFields {
  url?: string;
  events?: string;
  header?: string[];
  clearHeaders?: boolean;
  status?: WebhookStatus;
  scheme?: WebhookScheme;
  algorithm?: SigningAlgorithm;
  json?: boolean;
}

/** `dispatcher webhooks add|list|update|enable|replay|rm|rotate-secret` */
export function webhooksCommand(context: CommandContext): Command {
  const command = new Command('webhooks')
    .summary('register, list, change and remove webhooks')
    .addHelpText('after', examples(['acct-webhook dispatcher webhooks add --url https://erp.example.at/webhooks --events \'invoice.*\'', 'register one'], ['acct-webhook dispatcher webhooks list', 'see them all']));
  command.addCommand(addCommand(context));
  command.addCommand(listCommand(context));
  command.addCommand(updateCommand(context));
  command.addCommand(enableCommand(context));
  command.addCommand(replayCommand(context));
  command.addCommand(removeCommand(context));
  command.addCommand(rotateCommand(context));
  return command;
}

function addCommand(context: CommandContext): Command {
  return new Command('add')
    .summary('register a webhook; prints its secret (once)')
    .description('Registers a receiver URL for some events and prints the new whsec_… secret the receiver verifies with. The secret is shown here and by rotate-secret only.')
    .requiredOption('--url <url>', 'the receiver: https://…, or http://localhost… with --allow-insecure-urls')
    .option('--business <id>', "the business whose events it receives (only those); without it and without --platform it receives every business's events, with a warning")
    .option('--platform', "receive every business's events on purpose (an operator's audit sink)")
    .option('--events <list>', `event types and patterns, comma-separated (default: ${DEFAULT_WEBHOOK_EVENTS}, all)`, DEFAULT_WEBHOOK_EVENTS)
    .option('--header <name: value>', 'a custom header sent with every delivery (repeatable)', collect)
    .option('--status <status>', `${WEBHOOK_STATUSES.join(' or ')} (default: active)`, oneOf('--status', WEBHOOK_STATUSES))
    .option('--scheme <scheme>', `the signature headers: ${WEBHOOK_SCHEMES.join(', ')} (default: svc, the platform's x-svc-signature)`, oneOf('--scheme', WEBHOOK_SCHEMES))
    .option('--algorithm <algorithm>', `${SIGNING_ALGORITHMS.join(' or ')} (default: hmac-sha256; ed25519 needs --scheme standard-webhooks and prints the whpk_ public key)`, oneOf('--algorithm', SIGNING_ALGORITHMS))
    .addOption(jsonOption('print the registration (with its secret) as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook dispatcher webhooks add --business biz_4mVt9QeZxK2hRw7L --url https://erp.example.at/webhooks --events \'invoice.*,payment.*\' --header \'x-api-key: …\'', "one business's invoices and payments to its ERP"],
        ['acct-webhook dispatcher webhooks add --url https://erp.example.at/webhooks --scheme standard-webhooks --algorithm ed25519', 'Standard Webhooks v1a: the receiver verifies with the printed whpk_ key'],
      ),
    )
    .action(async function (this: Command, options: WebhookFields & { url: string; events: string; business?: string; platform?: boolean }) {
      const { parseEventList } = await import('../event-types.js');
      const events = parseEventList(options.events);
      const headers = parseHeaders(options.header ?? []);
      const created = await withDispatcher(this, { create: true }, (dispatcher) =>
        dispatcher.webhooks.create({
          ...(options.business === undefined ? {} : { business_id: options.business }),
          ...(options.platform ? { scope: 'platform' as const } : {}),
          url: options.url,
          events,
          headers,
          ...(options.status ? { status: options.status } : {}),
          ...(options.scheme ? { scheme: options.scheme } : {}),
          ...(options.algorithm ? { algorithm: options.algorithm } : {}),
        }),
      ).catch(async (error: unknown) => {
        const { inCliWords } = await import('./insecure-urls.js');
        throw inCliWords(error, options.url, allowsInsecureUrls(this));
      });
      if (options.json) return context.output.json({ ...publicView(created), secret: created.secret });
      context.output.line(`Registered ${created.id} → ${created.url}`);
      context.output.line(`  business: ${created.business_id ?? (created.scope === 'platform' ? "every business's events (platform scope)" : "every business's events (no --business given)")}`);
      const signing = created.scheme === 'svc' && created.algorithm === 'hmac-sha256' ? '' : `; scheme: ${created.scheme}; algorithm: ${created.algorithm}`;
      context.output.line(`  events: ${created.events.join(', ')}; status: ${created.status}${signing}`);
      if (created.public_key !== null) {
        context.output.line(`  public key: ${created.public_key}`);
        context.output.line('  The receiver verifies with this public key (webhooks list shows it again); the private key never leaves the dispatcher.');
        return;
      }
      // Showing the secret is what this command is for; it is printed to stdout and nowhere else.
      context.output.line(`  secret: ${created.secret}`);
      context.output.line('  The receiver verifies with this secret; it is shown only now (rotate-secret issues a new one).');
    });
}

function listCommand(context: CommandContext): Command {
  return new Command('list')
    .summary('list the registered webhooks (never their secrets)')
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook dispatcher webhooks list --db ./webhook-dispatch.db', 'a table on a terminal, aligned columns in a pipe'], ['acct-webhook dispatcher webhooks list --json', 'for scripts']))
    .action(async function (this: Command, options: { json?: boolean }) {
      const webhooks = await withDispatcher(this, {}, (dispatcher) => dispatcher.webhooks.list());
      if (options.json) return context.output.json(webhooks.map(publicView));
      if (webhooks.length === 0) return context.output.line('No webhooks registered. Add one with: acct-webhook dispatcher webhooks add --url …');
      context.output.raw(
        renderTable(
          webhooks,
          [
            { header: 'id', value: (webhook) => webhook.id },
            { header: 'url', value: (webhook) => webhook.url },
            { header: 'events', value: (webhook) => webhook.events.join(',') },
            { header: 'state', value: stateOf },
            { header: 'failing', value: (webhook) => (webhook.failure_streak === 0 ? '-' : `${webhook.failure_streak} since ${tableTime(webhook.failing_since)}`) },
            { header: 'in flight', value: (webhook) => String(webhook.in_flight), align: 'right' as const },
            { header: 'skipped', value: (webhook) => String(webhook.skipped_events), align: 'right' as const },
            { header: 'headers', value: (webhook) => Object.keys(webhook.headers).join(',') || '-' },
            { header: 'created (UTC)', value: (webhook) => tableTime(webhook.created_at) },
            { header: 'scheme', value: (webhook) => (webhook.algorithm === 'ed25519' ? `${webhook.scheme} (ed25519)` : webhook.scheme) },
            { header: 'public key', value: (webhook) => webhook.public_key ?? '-' },
          ],
          { boxed: context.output.stdoutIsTTY },
        ),
      );
    });
}

function updateCommand(context: CommandContext): Command {
  return new Command('update')
    .summary('change a webhook\'s URL, events, headers or status')
    .argument('<id>', 'the webhook (wh_…)')
    .option('--url <url>', 'a new receiver URL')
    .option('--events <list>', 'new event types and patterns, comma-separated')
    .option('--header <name: value>', 'replace the custom headers with these (repeatable)', collect)
    .option('--clear-headers', 'remove all custom headers')
    .option('--status <status>', WEBHOOK_STATUSES.join(' or '), oneOf('--status', WEBHOOK_STATUSES))
    .option('--scheme <scheme>', `the signature headers: ${WEBHOOK_SCHEMES.join(', ')}`, oneOf('--scheme', WEBHOOK_SCHEMES))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(['acct-webhook dispatcher webhooks update wh_… --status disabled', 'pause deliveries; pending ones wait'], ['acct-webhook dispatcher webhooks update wh_… --scheme both', 'send Standard Webhooks headers beside the platform\'s while receivers move']),
    )
    .action(async function (this: Command, id: string, options: WebhookFields) {
      const changes = await changesFrom(options);
      const updated = await withDispatcher(this, {}, (dispatcher) => dispatcher.webhooks.update(id, changes)).catch(async (error: unknown) => {
        const { inCliWords } = await import('./insecure-urls.js');
        throw inCliWords(error, options.url, allowsInsecureUrls(this));
      });
      if (options.json) return context.output.json(publicView(updated));
      context.output.line(`Updated ${updated.id} → ${updated.url}; events: ${updated.events.join(', ')}; status: ${updated.status}`);
    });
}

function enableCommand(context: CommandContext): Command {
  return new Command('enable')
    .summary('make a disabled webhook active again; --replay sends what was skipped')
    .description(
      'Makes a webhook active again with its failure streak cleared; its pending deliveries are sent again. With --replay, ' +
        'the events recorded as skipped while it was disabled are queued too, each once ("dispatcher run" sends them).',
    )
    .argument('<id>', 'the webhook (wh_…)')
    .option('--replay', 'also queue the events skipped while it was disabled')
    .addOption(jsonOption())
    .addHelpText('after', examples(['acct-webhook dispatcher webhooks enable wh_… --replay', 'the receiver is back: send it everything it missed']))
    .action(async function (this: Command, id: string, options: { replay?: boolean; json?: boolean }) {
      const enabled = await withDispatcher(this, {}, (dispatcher) => dispatcher.webhooks.enable(id, { replay: options.replay === true }));
      if (options.json) return context.output.json(publicView(enabled));
      const left = enabled.skipped_events === 0 ? '' : `; ${enabled.skipped_events} skipped event${enabled.skipped_events === 1 ? '' : 's'} not replayed (--replay sends them)`;
      context.output.line(`Enabled ${enabled.id} → ${enabled.url}; ${enabled.replayed} skipped event${enabled.replayed === 1 ? '' : 's'} queued again${left}.`);
    });
}

function replayCommand(context: CommandContext): Command {
  return new Command('replay')
    .summary("queue a time range of the business's events to a webhook once more")
    .description(
      "Queues the events of the webhook's business created from --from (inclusive) to --to (exclusive; default: now) to the webhook once more, " +
        'as new deliveries marked replay, each on the retry schedule ("dispatcher run" sends them): those of the types it subscribes to, narrowed by --types. ' +
        `An event with a delivery to this webhook still pending is skipped, so running it twice queues nothing twice. At most ${MAX_REPLAY_EVENTS} events a call.`,
    )
    .argument('<id>', 'the webhook (wh_…)')
    .requiredOption('--from <iso>', 'events created at or after this time (not before the delivery log’s retention)', isoTime('--from'))
    .option('--to <iso>', 'events created before this time (default: now)', isoTime('--to'))
    .option('--types <list>', 'only these event types and patterns, comma-separated (default: every type the webhook subscribes to)')
    .option('--business <id>', "the business whose events to replay: only for a webhook that receives every business's events", nonEmpty('--business'))
    .addOption(jsonOption('print { matched, queued, skipped, payload_removed } as JSON'))
    .addHelpText(
      'after',
      examples(
        ['acct-webhook dispatcher webhooks replay wh_… --from 2026-11-27T18:00:00Z --to 2026-11-30T08:00:00Z', 'the receiver was down for the weekend: send it that weekend again'],
        ["acct-webhook dispatcher webhooks replay wh_… --from 2026-11-01 --types 'invoice.*'", "this month's invoice events once more"],
      ),
    )
    .action(async function (this: Command, id: string, options: { from: number; to?: number; types?: string; business?: string; json?: boolean }) {
      const { parseEventList } = await import('../event-types.js');
      const replay: ReplayOptions = {
        from: options.from,
        ...(options.to === undefined ? {} : { to: options.to }),
        ...(options.types === undefined ? {} : { types: parseEventList(options.types) }),
        ...(options.business === undefined ? {} : { business_id: options.business }),
      };
      const result = await withDispatcher(this, {}, (dispatcher) => dispatcher.webhooks.replay(id, replay));
      if (options.json) return context.output.json(result);
      const skipped = result.skipped === 0 ? '' : `; ${result.skipped} skipped (a delivery to it is still pending)`;
      const removed = result.payload_removed === 0 ? '' : `; ${result.payload_removed} no longer kept (payload removed)`;
      context.output.line(`Replay to ${id}: ${result.matched} event${result.matched === 1 ? '' : 's'} in the range, ${result.queued} queued${skipped}${removed}.`);
    });
}

/** `active`, `failing` (active, its last attempt failed), `disabled (failing)` or `disabled (manual)`. */
function stateOf(webhook: WebhookRegistration): string {
  if (webhook.status === 'disabled') return `disabled (${webhook.disabled_reason ?? 'manual'})`;
  return webhook.failure_streak > 0 ? 'failing' : 'active';
}

function removeCommand(context: CommandContext): Command {
  return new Command('rm')
    .summary('delete a webhook (its delivery log stays)')
    .argument('<id>', 'the webhook (wh_…)')
    .addHelpText('after', examples(['acct-webhook dispatcher webhooks rm wh_…', 'stop sending to it for good']))
    .action(async function (this: Command, id: string) {
      await withDispatcher(this, {}, (dispatcher) => dispatcher.webhooks.delete(id));
      context.output.line(`Deleted ${id}. Its delivery log stays; its pending deliveries end as finally_failed.`);
    });
}

function rotateCommand(context: CommandContext): Command {
  return new Command('rotate-secret')
    .summary('issue a new secret; the old one stops at once, or signs beside it for --grace')
    .argument('<id>', 'the webhook (wh_…)')
    .option('--grace <duration>', 'the old secret keeps signing beside the new one this long: 24h, 90m, 7d (at most 30d; default: 0, it stops at once)', duration('--grace', MAX_ROTATION_GRACE_MS))
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples(['acct-webhook dispatcher webhooks rotate-secret wh_…', 'prints the new whsec_… secret (or whpk_… public key)'], ['acct-webhook dispatcher webhooks rotate-secret wh_… --grace 24h', 'both sign for a day: switch the receiver any time within it']),
    )
    .action(async function (this: Command, id: string, options: { json?: boolean; grace?: number }) {
      const graceMs = options.grace ?? 0;
      const { secret, until } = await withDispatcher(this, {}, async (dispatcher) => {
        const issued = await dispatcher.webhooks.rotateSecret(id, { graceMs });
        return { secret: issued, until: (await dispatcher.webhooks.get(id)).previous_secret_expires_at };
      });
      const kind = secret.startsWith('whpk_') ? 'public key' : 'secret';
      if (options.json) return context.output.json({ id, [kind === 'secret' ? 'secret' : 'public_key']: secret, previous_secret_expires_at: until });
      context.output.line(`New ${kind} for ${id}: ${secret}`);
      if (until === null) context.output.line('  Every attempt from now on is signed with it alone. Let the receiver accept both while you switch: secret: [new, old].');
      else context.output.line(`  The old one keeps signing beside it until ${until}: switch the receiver to the new ${kind} before then.`);
    });
}

async function changesFrom(options: WebhookFields): Promise<UpdateWebhookInput> {
  if (options.header !== undefined && options.clearHeaders) {
    throw new CliError('INVALID_OPTION', 'Give --header or --clear-headers, not both', { option: '--clear-headers' });
  }
  const changes: UpdateWebhookInput = {};
  if (options.url !== undefined) changes.url = options.url;
  if (options.events !== undefined) {
    const { parseEventList } = await import('../event-types.js');
    changes.events = parseEventList(options.events);
  }
  if (options.header !== undefined) changes.headers = parseHeaders(options.header);
  if (options.clearHeaders) changes.headers = {};
  if (options.status !== undefined) changes.status = options.status;
  if (options.scheme !== undefined) changes.scheme = options.scheme;
  if (Object.keys(changes).length === 0) {
    throw new CliError('INVALID_OPTION', 'Nothing to change: give --url, --events, --header, --clear-headers, --status or --scheme', { option: '' });
  }
  return changes;
}

/** `x-api-key: abc` → `{ 'x-api-key': 'abc' }`. The value is never echoed in an error: it may be a credential. */
function parseHeaders(headers: readonly string[]): Record<string, string> {
  const parsed: Record<string, string> = {};
  for (const header of headers) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim();
    if (colon <= 0 || name === '') {
      throw new CliError('INVALID_OPTION', '--header must be "name: value", e.g. "x-api-key: …"', { option: '--header' });
    }
    parsed[name] = header.slice(colon + 1).trim();
  }
  return parsed;
}

/** A registration as the CLI shows it: custom header names only, their values may be credentials. */
function publicView<W extends WebhookRegistration>(webhook: W): Omit<W, 'headers'> & { headers: string[] } {
  return { ...webhook, headers: Object.keys(webhook.headers) };
}
