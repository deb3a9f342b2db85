import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/kernel/errors.js';
import { jsonLogger } from '../../src/logging/json-logger.js';
import { DEFAULT_LOGGER_NAME, defaultLogger, REDACTED_CENSOR, REDACTED_PATHS, type Logger } from '../../src/logging/logger.js';

const SECRET = 'whsec_neverInALogLine000';
const SIGNATURE = 'ab'.repeat(32);
const NOW = Date.UTC(2026, 10, 25, 9, 0, 0);

/** The built-in logger as the default makes it, writing into an array. */
function builtIn(component = 'receiver'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = jsonLogger({
    level: 'info',
    bindings: { component, name: DEFAULT_LOGGER_NAME },
    redact: REDACTED_PATHS,
    censor: REDACTED_CENSOR,
    write: (line) => lines.push(line),
    now: () => NOW,
  });
  return { logger, lines };
}

/** pino as the package's default was made before the built-in logger (pino 10, the same options). */
function pinoDefault(component = 'receiver'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(
    { name: DEFAULT_LOGGER_NAME, level: 'info', base: { component }, redact: { paths: [...REDACTED_PATHS], censor: REDACTED_CENSOR }, timestamp: () => `,"time":${NOW}` },
    { write: (line: string) => lines.push(line) },
  );
  return { logger, lines };
}

// Made once: a stack names the line an error was made on, and each logger must see the same.
const failure = Object.assign(new Error('the ledger did not answer', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }), { code: 'LEDGER_DOWN' });
const aggregate = new AggregateError([new Error('first'), new TypeError('second')], 'Handlers failed');
const refusal = new ConfigurationError({ option: 'store', reason: 'is not a store' });

/** What the package logs, and what a handler might log through its context's logger. */
const CALLS: [name: string, log: (logger: Logger) => void][] = [
  ['fields and a message', (logger) => logger.info({ eventId: 'evt_1', type: 'invoice.paid', outcome: 'handled', status: 200, durationMs: 3.5 }, 'webhook delivery')],
  ['a message only', (logger) => logger.warn('Accepting a legacy x-service-signature')],
  ['fields only', (logger) => logger.info({ amount: 16950 })],
  ['an error with a cause and a code under err', (logger) => logger.error({ eventId: 'evt_1', err: failure }, 'Could not record the event as handled')],
  ['an AggregateError under err', (logger) => logger.error({ err: aggregate }, 'webhook delivery')],
  ['a ConfigurationError (code, details) under err', (logger) => logger.error({ err: refusal }, 'setup')],
  ['an Error instead of fields', (logger) => logger.error(failure)],
  ['an Error instead of fields, and a message', (logger) => logger.error(failure, 'worker error')],
  ["a child's bindings", (logger) => logger.child({ eventId: 'evt_2', correlationId: 'cor_2' }).info({ amount: 1 }, 'invoice paid')],
  ["a grandchild's bindings", (logger) => logger.child({ a: 1 }).child({ b: 2 }).warn({ c: 3 }, 'nested')],
  ['a secret and a signature at the top', (logger) => logger.info({ secret: SECRET, signature: SIGNATURE, kept: 'yes' }, 'careless')],
  ['secrets one level down', (logger) => logger.info({ webhook: { url: 'https://r.example/', secret: SECRET }, request: { signature: SIGNATURE } }, 'careless')],
  ['headers, top and nested', (logger) => logger.info({ headers: { 'x-svc-signature': SIGNATURE }, request: { headers: { authorization: SECRET }, method: 'POST' } }, 'careless')],
  ['signature headers as keys', (logger) => logger.info({ 'x-svc-signature': SIGNATURE, 'x-service-signature': `sha256=${SIGNATURE}`, sent: { 'x-svc-signature': SIGNATURE } }, 'careless')],
  ["a secret in a child's bindings", (logger) => logger.child({ webhook: { secret: SECRET } }).info('bound')],
  ['a date, an array, null, and what JSON leaves out', (logger) => logger.info({ at: new Date(NOW), list: [1, 'two', { three: 3 }], none: null, missing: undefined, fn: () => 1 }, 'values')],
  ['a bigint', (logger) => logger.info({ amount: 10n }, 'big')],
  ['debug, below the level', (logger) => logger.debug({ detail: 1 }, 'not written')],
];

describe('the built-in JSON logger writes what pino wrote as the default', () => {
  it.each(CALLS)('%s: the same line, character for character', (_name, log) => {
    const ours = builtIn();
    const theirs = pinoDefault();
    log(ours.logger);
    log(theirs.logger);
    expect(ours.lines).toEqual(theirs.lines);
  });

  it('never writes a secret or a signature in any of those lines', () => {
    const { logger, lines } = builtIn();
    for (const [, log] of CALLS) log(logger);
    const everything = lines.join('');
    expect(everything).toContain(REDACTED_CENSOR);
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(SIGNATURE);
  });
});

describe('the built-in JSON logger', () => {
  it('writes one JSON line per call: level, time, bindings, fields, msg', () => {
    const { logger, lines } = builtIn('dispatcher');
    logger.warn({ webhook_id: 'wh_1' }, 'webhook attempt failed');
    expect(lines).toEqual([`{"level":40,"time":${NOW},"component":"dispatcher","name":"acct-webhook","webhook_id":"wh_1","msg":"webhook attempt failed"}\n`]);
  });

  it('changes nothing in the objects it is given', () => {
    const { logger } = builtIn();
    const fields = { secret: SECRET, request: { headers: { 'x-svc-signature': SIGNATURE } }, err: failure };
    logger.error(fields, 'careless');
    expect(fields).toEqual({ secret: SECRET, request: { headers: { 'x-svc-signature': SIGNATURE } }, err: failure });
    expect(failure.message).toBe('the ledger did not answer');
  });

  it("a child's redact paths are added to its parent's: it still blanks what the parent blanks", () => {
    const { logger, lines } = builtIn();
    logger.child({ eventId: 'evt_1' }, { redact: ['customer.email', 'card[*]'] }).info({ secret: SECRET, customer: { email: 'a@b.at', name: 'A' }, card: ['4111', '12/30'] }, 'paid');
    expect(JSON.parse(lines[0]!)).toMatchObject({ secret: REDACTED_CENSOR, customer: { email: REDACTED_CENSOR, name: 'A' }, card: [REDACTED_CENSOR, REDACTED_CENSOR] });
  });

  it('writes a circular reference as [Circular] and a bigint beyond 2^53 as a string', () => {
    const { logger, lines } = builtIn();
    const node: Record<string, unknown> = { id: 1 };
    node.self = node;
    logger.info({ node, huge: 2n ** 64n }, 'odd values');
    expect(JSON.parse(lines[0]!)).toMatchObject({ node: { id: 1, self: '[Circular]' }, huge: '18446744073709551616' });
  });

  it('level, time and msg are its own, whatever fields of those names say', () => {
    const { logger, lines } = builtIn();
    logger.info({ level: 'verbose', time: 'noon', msg: 'from the fields' }, 'the message');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, time: NOW, msg: 'the message' });
  });

  it('a field that cannot be read still gives a line, and the call does not throw', () => {
    const { logger, lines } = builtIn();
    const hostile = {
      get amount(): number {
        throw new RangeError('no amount');
      },
    };
    expect(() => logger.info({ hostile }, 'odd fields')).not.toThrow();
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 30,
      time: NOW,
      component: 'receiver',
      name: 'acct-webhook',
      logError: 'the fields could not be written: RangeError: no amount',
      msg: 'odd fields',
    });
  });

  it('writes debug lines when its level is debug', () => {
    const lines: string[] = [];
    const logger = jsonLogger({ level: 'debug', bindings: {}, redact: [], censor: REDACTED_CENSOR, write: (line) => lines.push(line), now: () => NOW });
    logger.debug({ detail: 1 }, 'written');
    expect(lines).toEqual([`{"level":20,"time":${NOW},"detail":1,"msg":"written"}\n`]);
  });
});

describe('defaultLogger', () => {
  it('writes to process.stderr, with the component and the name', () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
    try {
      defaultLogger('dashboard').error({ secret: SECRET }, 'dashboard request failed');
      defaultLogger('dashboard').debug('below the level');
    } finally {
      process.stderr.write = original;
    }
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toEqual({
      level: 50,
      time: expect.any(Number),
      component: 'dashboard',
      name: 'acct-webhook',
      secret: REDACTED_CENSOR,
      msg: 'dashboard request failed',
    });
  });
});
