/**
 * For this repository's own benchmarks (bench/micro.mjs compares parseEvent with the bare zod
 * schema it runs) and build (`npm run build:catalog`). Built to dist/internal.*, but not in the package's `exports` map nor in
 * its tarball: no user can import it, and it is not part of the API.
 */
export { webhookEventSchema } from './events/schemas.js';

/** For this repository's build (`npm run build:validators`): the event validators generated from the zod schemas. */
export { writeEventValidators } from './events/validator-source.js';

/** For this repository's build (`npm run build:catalog`): schemas/ and docs/event-catalog.md's generated part. */
export { writeRepositoryCatalog } from './catalog/repository.js';
