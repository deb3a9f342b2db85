import { SandboxError } from './errors.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** The longest single advance: a year and a bit, enough for every renewal and retry. */
const MAX_ADVANCE_MS = 400 * UNIT_MS.d;

/**
 * The sandbox's time. Everything the sandbox stamps (objects, events, the Dispatcher's attempts
 * and schedule, rate-limit windows) reads it. `frozen`: it moves only when told (a tick per
 * state change, `advance`), so a seeded run is reproducible; otherwise it follows the wall
 * clock, shifted by every advance.
 */
export class SandboxClock {
  constructor(
    private readonly start: number,
    private offsetMs: number,
    private readonly frozen: boolean,
    private readonly wall: () => number = Date.now,
    private readonly wallAtStart: number = wall(),
  ) {}

  readonly now = (): number => this.start + this.offsetMs + (this.frozen ? 0 : this.wall() - this.wallAtStart);

  get isFrozen(): boolean {
    return this.frozen;
  }

  /** How far advances and ticks have moved the clock; persisted so that a reopened sandbox keeps its time. */
  get offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock forward; never backward. */
  moveTo(ms: number): void {
    this.offsetMs += Math.max(0, ms - this.now());
  }
}

/**
 * `30d`, `2h`, `90m`, `45s` (combinable: `1d12h`) → milliseconds.
 * @throws SandboxError VALIDATION_ERROR with `details.field`
 */
export function parseDuration(text: unknown, field: string): number {
  const parts = typeof text === 'string' ? [...text.matchAll(/(\d+)([smhd])/g)] : [];
  const total = parts.reduce((sum, [, count, unit]) => sum + Number(count) * UNIT_MS[unit as keyof typeof UNIT_MS], 0);
  const whole = parts.map(([part]) => part).join('') === text;
  if (!whole || total <= 0 || total > MAX_ADVANCE_MS) {
    throw SandboxError.validation(field, 'must be a duration such as 30d, 2h, 90m or 45s (up to 400d)');
  }
  return total;
}
