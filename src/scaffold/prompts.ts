import { cancel, groupMultiselect, isCancel, select, text } from '@clack/prompts';
import { EVENT_CATALOG, EVENT_TYPES, type EventType } from '../events/catalog.js';
import { ADAPTERS, STORES, choiceNames, type Adapter, type Store } from './choices.js';
import { DEFAULT_ADAPTER, DEFAULT_PROJECT_NAME, DEFAULT_STORE } from './project-defaults.js';
import { ScaffoldError } from './errors.js';
import { groupEvents, inCatalogOrder } from './events.js';

/** A clack answer, or CANCELLED when the user pressed Ctrl-C or Escape. */
function answered<T>(value: T | symbol): Exclude<T, symbol> {
  if (isCancel(value)) {
    cancel('Cancelled.');
    throw new ScaffoldError('CANCELLED', 'Cancelled; nothing was written');
  }
  return value as Exclude<T, symbol>;
}

/**
 * Asks for the project name. `problem` checks an answer (a valid npm name, a usable directory)
 * and returns why it cannot be used; the prompt then asks again.
 */
export async function askProjectName(problem: (name: string) => string | undefined): Promise<string> {
  const name = await text({
    message: 'Project name',
    placeholder: DEFAULT_PROJECT_NAME,
    defaultValue: DEFAULT_PROJECT_NAME,
    validate: (value) => problem(nameOrDefault(value)),
  });
  return nameOrDefault(answered(name));
}

function nameOrDefault(value: string | undefined): string {
  const name = value?.trim() ?? '';
  return name === '' ? DEFAULT_PROJECT_NAME : name;
}

/** Which events to handle: every type of the catalog, grouped and titled as in the platform's document. */
export async function askEvents(initial: readonly EventType[]): Promise<EventType[]> {
  const options = Object.fromEntries(
    groupEvents(EVENT_TYPES).map((group) => [
      group.title,
      group.types.map((type) => ({ value: type, label: type, hint: EVENT_CATALOG[type].emittedWhen })),
    ]),
  );
  const events = await groupMultiselect<EventType>({
    message: 'Which events should the receiver handle? (space selects, enter confirms)',
    options,
    initialValues: [...initial],
    required: true,
  });
  return inCatalogOrder(answered(events));
}

export async function askStore(): Promise<Store> {
  const store = await select<Store>({
    message: 'Where should handled event ids be remembered?',
    options: choiceNames(STORES).map((value) => ({ value, label: STORES[value].label, hint: STORES[value].hint })),
    initialValue: DEFAULT_STORE,
  });
  return answered(store);
}

export async function askAdapter(): Promise<Adapter> {
  const adapter = await select<Adapter>({
    message: 'How should the receiver be served?',
    options: choiceNames(ADAPTERS).map((value) => ({ value, label: ADAPTERS[value].label, hint: ADAPTERS[value].hint })),
    initialValue: DEFAULT_ADAPTER,
  });
  return answered(adapter);
}
