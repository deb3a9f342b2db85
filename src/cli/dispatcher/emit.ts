import { Command } from 'commander';
import type { CommandContext } from '../context.js';
import { jsonOption } from '../common-options.js';
import { eventTypesHelp, examples } from '../help.js';
import { collect } from '../options.js';
import { withDispatcher } from './shared.js';

interface EmitOptions {
  set?: string[];
  json?: boolean;
}

/** `dispatcher emit <type>`: the catalog's sample, changed by --set, queued for its subscribers. */
export function emitCommand(context: CommandContext): Command {
  return new Command('emit')
    .summary('emit a sample event to every subscribed webhook')
    .description(
      'Emits the event catalog\'s sample of <type> (a new evt_… id, created now), with --set changes, validated with the ' +
        'receiver\'s own schemas. One delivery is queued for every active webhook subscribed to the type; "dispatcher run" sends them.',
    )
    .argument('<type>', 'the event type')
    .option('--set <path=value>', 'change a field, e.g. data.object.amount=5000 (repeatable; JSON values)', collect)
    .addOption(jsonOption('print the event and the webhooks it was queued for as JSON'))
    .addHelpText('after', () => examples(['acct-webhook dispatcher emit payment.failed --set data.object.amount=12000', 'a failed payment of 120.00 EUR']) + eventTypesHelp(context.help))
    .action(async function (this: Command, type: string, options: EmitOptions) {
      const { parseEventType } = await import('../event-types.js');
      const { sampleWithSets } = await import('../sample-event.js');
      const { expandEventPattern } = await import('../../events/catalog.js');
      const event = sampleWithSets(parseEventType(type), options.set ?? []);
      const { emitted, queuedFor } = await withDispatcher(this, {}, async (dispatcher) => {
        const emitted = await dispatcher.emit(event);
        const webhooks = await dispatcher.webhooks.list();
        const subscribed = webhooks.filter((webhook) => webhook.status === 'active' && webhook.events.some((pattern) => expandEventPattern(pattern).includes(emitted.type)));
        return { emitted, queuedFor: subscribed.map((webhook) => webhook.id) };
      });
      if (options.json) return context.output.json({ event: emitted, queuedFor });
      context.output.line(`Emitted ${emitted.id} (${emitted.type}); queued for ${queuedFor.length} webhook${queuedFor.length === 1 ? '' : 's'}${queuedFor.length > 0 ? `: ${queuedFor.join(', ')}` : ''}.`);
      if (queuedFor.length > 0) context.output.line('  "acct-webhook dispatcher run" sends it (and retries on the schedule).');
    });
}
