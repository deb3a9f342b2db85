import type { ExitCode } from '../cli-kit/exit-codes.js';
import type { HelpResources } from './help.js';
import type { CliIo } from './io.js';
import type { Output } from './output.js';

/** What every command definition gets: where to print, what help may show, how to end. */
export interface CommandContext {
  readonly io: CliIo;
  readonly output: Output;
  readonly help: HelpResources;
  /** Sent as `user-agent` by the commands that make requests. */
  readonly userAgent: string;
  /**
   * For an action that completed and printed its result, but whose result is a failure (a
   * signature that does not verify, a replay with failed events): the process ends with `code`
   * and no error line.
   */
  setExitCode(code: ExitCode): void;
}
