import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

/**
 * A fixture script in a child process that talks in JSON lines on stdout. Lines are kept in
 * order; `line()` waits for one that matches (up to a deadline, failing with what the child said
 * on stderr). Always stopped by the test: `stop()` (SIGTERM, then SIGKILL after a grace period)
 * or `kill()` (SIGKILL at once, as a crash).
 */
export class ChildScript {
  readonly lines: Record<string, unknown>[] = [];
  readonly exited: Promise<number | null>;
  private stderr = '';
  private readonly listeners = new Set<() => void>();

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (text) => {
      this.lines.push(JSON.parse(text) as Record<string, unknown>);
      for (const listener of this.listeners) listener();
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    void this.exited.then(() => {
      for (const listener of this.listeners) listener();
    });
  }

  static start(script: string, args: string[]): ChildScript {
    return new ChildScript(spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** The first line (already printed or to come) for which `matches` holds. */
  line(matches: (line: Record<string, unknown>) => boolean, description: string, timeoutMs = OUTCOME_TIMEOUT_MS): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.lines.find(matches);
        if (found) return done(() => resolve(found));
        if (this.child.exitCode !== null || this.child.signalCode !== null) {
          done(() => reject(new Error(`the child exited (${this.child.exitCode ?? this.child.signalCode}) before ${description}: ${this.stderr}`)));
        }
      };
      const timer = setTimeout(() => done(() => reject(new Error(`no ${description} within ${timeoutMs} ms: ${this.stderr}`))), timeoutMs);
      const done = (settle: () => void): void => {
        clearTimeout(timer);
        this.listeners.delete(check);
        settle();
      };
      this.listeners.add(check);
      check();
    });
  }

  send(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  /** SIGKILL: the process dies as in a crash, in the middle of whatever it does. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM and the exit code; SIGKILL if it does not exit within the grace period. */
  async stop(graceMs = 10_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
