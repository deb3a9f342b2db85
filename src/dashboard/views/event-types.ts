import { z } from 'zod';
import { EVENT_CATALOG, EVENT_GROUPS, EVENT_TYPES, type EventType } from '../../events/catalog.js';
import { sampleEvent } from '../../events/sample-event.js';
import { html, type Html } from '../html.js';
import { htmlResponse, type DashboardResponse } from '../http.js';
import { codeBlock, page } from '../layout.js';
import type { Route, RouteContext } from '../routes.js';

/** The event catalog as a page: each type, when it is sent, the schema of its object and a sample event. */
export const EVENT_TYPE_ROUTES: readonly Route[] = [{ method: 'GET', path: '/event-types', handler: catalogPage }];

/** The schema of a type's `data.object`, as JSON Schema (made once per type). */
const schemas = new Map<EventType, string>();
function schemaOf(type: EventType): string {
  let text = schemas.get(type);
  if (text === undefined) {
    text = JSON.stringify(z.toJSONSchema(EVENT_CATALOG[type].object, { io: 'output', unrepresentable: 'any' }), null, 2);
    schemas.set(type, text);
  }
  return text;
}

function typeSection(type: EventType, now: number): Html {
  const entry = EVENT_CATALOG[type];
  const id = type.replace('.', '-');
  return html`<section aria-labelledby="${id}"><h2 id="${id}"><code>${type}</code></h2>
<p>Sent when ${entry.emittedWhen}. Group: ${EVENT_GROUPS[entry.group].title}.</p>
<details><summary>Schema of <code>data.object</code></summary>${codeBlock(`${id}-schema`, `the schema of ${type}`, schemaOf(type))}</details>
<details><summary>A sample event</summary>${codeBlock(`${id}-sample`, `a sample ${type} event`, JSON.stringify(sampleEvent(type, { now })))}</details>
</section>`;
}

function catalogPage(context: RouteContext): Promise<DashboardResponse> {
  const body = html`<p>Every event type a webhook can subscribe to. Each delivery's body is one such event, signed.</p>${EVENT_TYPES.map((type) => typeSection(type, context.now))}`;
  return Promise.resolve(htmlResponse(page(context.page, 'catalog', 'Event types', body)));
}
