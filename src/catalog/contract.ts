import { DELIVERY_TIMEOUT_MS, RESPONSE_BODY_LIMIT_BYTES } from '../dispatcher/dispatcher-defaults.js';
import { RETRY_SCHEDULE } from '../dispatcher/schedule.js';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, TIMESTAMP_HEADER } from '../signing/signature.js';

/*
 * The delivery contract in the words the published documents use (OpenAPI and AsyncAPI say it
 * the same way). The numbers come from the code that implements it.
 */

const timeoutSeconds = DELIVERY_TIMEOUT_MS / 1000;
const attempts = RETRY_SCHEDULE.length;

function duration(seconds: number): string {
  if (seconds === 0) return 'at once';
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}

/** `0 (at once), 1 min, 5 min, …`: the waits before attempts 1–7. */
const schedule = RETRY_SCHEDULE.map(duration).join(', ');

export const SIGNATURE_PATTERN = '^[0-9a-f]{64}$';
export const TIMESTAMP_PATTERN = '^[0-9]+$';

export const SIGNATURE_DESCRIPTION =
  `Lower-case hex HMAC-SHA256 of the text \`<${TIMESTAMP_HEADER}>.<raw body>\` (the timestamp header exactly as received, ` +
  'a dot, and the raw request body byte for byte, before any JSON parsing), keyed with the whole webhook secret ' +
  '(`whsec_…`) as UTF-8 bytes. Compare it with the HMAC you compute in constant time, and refuse the request (401) ' +
  'when they differ.';

export const TIMESTAMP_DESCRIPTION =
  `Unix time in whole seconds when the request was signed; part of the signed text. Refuse the request (401) when it ` +
  `differs from your clock by more than ${DEFAULT_TOLERANCE_SECONDS} s, in either direction: an old, captured request ` +
  'replayed later then fails even with a valid signature.';

export const DELIVERY_DESCRIPTION =
  `The platform POSTs each event as JSON to every registered HTTPS URL subscribed to its type, with the headers ` +
  `\`${SIGNATURE_HEADER}\` and \`${TIMESTAMP_HEADER}\` (see their descriptions) and any custom header of the ` +
  `registration. A 2xx answer within ${timeoutSeconds} s acknowledges the event; any other answer, or none in ` +
  `${timeoutSeconds} s, is retried: ${attempts} attempts in all, the waits before them ${schedule}. After attempt ` +
  `${attempts} the delivery is finally failed. The same event may arrive more than once (a retry after an answer ` +
  'that was lost, a manual replay): its `id` is the idempotence key. Objects may gain fields at any time: ignore ' +
  'the ones you do not know.';

export const RESPONSES = {
  delivered: {
    range: '2XX',
    description:
      'Delivered: the receiver has the event, handled now or before (answer 2xx to a duplicate too, without handling ' +
      `it again). The sender marks the delivery delivered and sends it no more. The first ${RESPONSE_BODY_LIMIT_BYTES / 1024} KiB ` +
      'of the body are kept in the delivery log; the sender does not read them.',
  },
  refused: {
    range: '4XX',
    description:
      'Refused. What a receiver answers: 400 for missing or malformed signature headers; 401 for a signature that does ' +
      `not match or a timestamp outside the ${DEFAULT_TOLERANCE_SECONDS} s window; 409 while the same event is being ` +
      'handled by another delivery; 413 for a body over its limit; 422 for a valid signature on a payload it cannot ' +
      `read. The sender retries every answer that is not 2xx on its schedule (waits ${schedule}) and marks the ` +
      `delivery finally failed after attempt ${attempts}.`,
  },
  failed: {
    range: '5XX',
    description:
      'Failed: the receiver could not handle the event now (a handler threw or ran out of time, a database was down). ' +
      `Retried on the schedule like any answer that is not 2xx; no answer within ${timeoutSeconds} s counts the same.`,
  },
} as const;

/**
 * Where the sandbox runs when `acct-webhook sandbox` starts it with its defaults: the value the
 * published documents give `{sandbox_url}` and `{base_url}` until a user sets them
 * (`test/catalog/documents.test.ts` holds it equal to the CLI's default).
 */
export const LOCAL_SANDBOX_ROOT = 'http://127.0.0.1:4010';

/**
 * The platform's two API roots, named as its API document names them: `{base_url}` (production)
 * and `{sandbox_url}` (the sandbox), each ending just before `/v1`. The document publishes no
 * production address (an account is given it), so both default to the sandbox on this machine: a
 * tool that takes the defaults never sends a request to production by accident. What a variable
 * means is said in its server's description: a variable's own `description` fails swagger-parser,
 * whose copy of the OpenAPI 3.1 schema spells that field `descriptions`.
 */
export const API_SERVERS = [
  {
    url: '{sandbox_url}',
    description:
      'The sandbox: the platform\'s test environment, whose events go to the URLs registered there. `sandbox_url` is ' +
      'its API root, before `/v1`; the default is `acct-webhook sandbox` on this machine with its default port.',
    variables: { sandbox_url: { default: LOCAL_SANDBOX_ROOT } },
  },
  {
    url: '{base_url}',
    description:
      'Production: the platform\'s API, whose events of live businesses go to the URLs registered there. `base_url` is ' +
      'its API root, before `/v1`, which comes with your platform account. No address is published, so the default ' +
      'is the local sandbox: nothing reaches production until you set it.',
    variables: { base_url: { default: LOCAL_SANDBOX_ROOT } },
  },
] as const;
