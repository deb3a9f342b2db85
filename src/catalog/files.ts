import { EVENT_TYPES } from '../events/catalog.js';
import type { CatalogDocuments } from './documents.js';
import { schemaFileOf, UNION_SCHEMA_FILE } from './json-schema.js';
import type { JsonObject } from './json.js';
import { toYaml } from './yaml.js';

export const CATALOG_FORMATS = ['openapi', 'asyncapi', 'json-schema'] as const;
/** The formats of `acct-webhook catalog --format`. */
export type CatalogFormat = (typeof CATALOG_FORMATS)[number];

/** A file of the catalog: its name in the directory it is written to, and its text. */
export interface CatalogFile {
  path: string;
  content: string;
}

/** How a document is written: YAML, indented JSON (for people), or JSON on one line (what the package ships). */
interface SerializeOptions {
  yaml?: boolean;
  compact?: boolean;
}

function serialize(document: JsonObject, { yaml = false, compact = false }: SerializeOptions): string {
  if (yaml) return toYaml(document);
  return `${compact ? JSON.stringify(document) : JSON.stringify(document, null, 2)}\n`;
}

/**
 * The files of one format, as `--out <dir>` writes them and as the package's `schemas/` holds
 * them (OpenAPI and AsyncAPI in `schemas/`, JSON Schema in `schemas/json-schema/`).
 */
export function catalogFiles(documents: CatalogDocuments, format: CatalogFormat, options: SerializeOptions = {}): CatalogFile[] {
  const types = format === 'json-schema' ? EVENT_TYPES.map((type) => [schemaFileOf(type), documents.jsonSchema.types[type]] as const) : [];
  return [[MAIN_FILES[format], mainDocument(documents, format)] as const, ...types].map(([file, document]) => ({
    path: options.yaml === true ? file.replace(/\.json$/, '.yaml') : file,
    content: serialize(document, options),
  }));
}

const MAIN_FILES: Readonly<Record<CatalogFormat, string>> = { openapi: 'openapi.json', asyncapi: 'asyncapi.json', 'json-schema': UNION_SCHEMA_FILE };

function mainDocument(documents: CatalogDocuments, format: CatalogFormat): JsonObject {
  if (format === 'openapi') return documents.openapi;
  return format === 'asyncapi' ? documents.asyncapi : documents.jsonSchema.event;
}

/** What `--format` prints without `--out`: the one document that holds everything (for JSON Schema, the union). */
export function catalogDocumentText(documents: CatalogDocuments, format: CatalogFormat, { yaml = false } = {}): string {
  return serialize(mainDocument(documents, format), { yaml });
}
