/**
 * acct-webhook/catalog: the event catalog as OpenAPI, AsyncAPI and JSON Schema documents. An entry
 * of its own, so that the receiver never loads the generator. This file only re-exports.
 */
export { catalogDocuments, type CatalogDocuments, type CatalogOptions } from './documents.js';
export type { JsonObject, JsonValue } from './json.js';
