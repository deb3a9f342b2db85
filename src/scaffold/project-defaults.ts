import type { EventType } from '../events/catalog.js';
import type { Adapter, PackageManager, Store } from './choices.js';

/**
 * What a project gets when neither a flag nor an answer says otherwise (`--yes`, no TTY, `CI`).
 *
 * The default events are the money events — invoices and payments — because that is what most
 * receivers are built for; the prompt starts with the same selection, and `--events '*'`
 * takes all of them.
 */
export const DEFAULT_EVENTS = 'invoice.*,payment.*';
export const DEFAULT_STORE: Store = 'sqlite';
export const DEFAULT_ADAPTER: Adapter = 'express';
export const DEFAULT_PACKAGE_MANAGER: PackageManager = 'npm';
/** The name the prompt suggests when no directory was given. */
export const DEFAULT_PROJECT_NAME = 'webhook-receiver';
/**
 * The event the generated test and README use as their example when it was chosen: the one a
 * receiver of money events most likely exists for. Otherwise the first chosen event is used.
 */
export const PREFERRED_SAMPLE_EVENT: EventType = 'invoice.paid';
/** The port in the generated `.env.example` and README. */
export const DEFAULT_PORT = 3000;
/**
 * Where the generated receiver answers: the receiver's default path, which the templates rely on
 * (they pass no `path`). A copy, so that the published scaffolder does not bundle the receiver
 * (pino, better-sqlite3); test/scaffold/rules.test.ts keeps it equal to the receiver's.
 */
export const RECEIVER_PATH = '/webhooks';
