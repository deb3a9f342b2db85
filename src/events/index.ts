export {
  EVENT_CATALOG,
  EVENT_GROUPS,
  EVENT_TYPES,
  expandEventPattern,
  isEventPattern,
  isEventType,
  type EventGroup,
  type EventPattern,
  type EventPrefix,
  type EventType,
} from './catalog.js';
export { EVENT_SCHEMAS, webhookEventSchema, type EventMap, type EventObject, type EventSchema, type PreviousAttributes, type WebhookEvent } from './schemas.js';
export { parseEvent } from './parse.js';
export { API_VERSION, buildEvent, type BuildEventOptions } from './build.js';
export { mergeDeep, type DeepPartial } from './merge.js';
export { SAMPLE_BUSINESS_ID } from './samples.js';
