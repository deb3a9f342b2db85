import type { EventType } from '../events/catalog.js';
import type { Adapter, PackageManager, Store } from './choices.js';

/** Everything a generation needs, checked: flags, answers and defaults merged. */
export interface ProjectOptions {
  /** Absolute path of the project directory. */
  directory: string;
  /** The npm package name of the generated project. */
  projectName: string;
  /** In catalog order, each once. */
  events: EventType[];
  store: Store;
  adapter: Adapter;
  packageManager: PackageManager;
  /** The `--acct-webhook` spec, local paths made relative to `directory`; undefined writes `^<version>`. */
  acctWebhookSpec: string | undefined;
  install: boolean;
  git: boolean;
  force: boolean;
}
