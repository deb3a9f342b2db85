/**
 * For this repository's own benchmarks only (bench/micro.mjs compares parseEvent with the bare
 * zod schema it runs). Built to dist/internal.*, but not in the package's `exports` map nor in
 * its tarball: no user can import it, and it is not part of the API.
 */
export { webhookEventSchema } from './events/schemas.js';
