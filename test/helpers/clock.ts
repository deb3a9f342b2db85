/** A clock for tests: `now()` returns milliseconds since the epoch and moves only when told. */
export class FakeClock {
  constructor(private current: number = Date.UTC(2026, 10, 22, 9, 0, 0)) {}

  readonly now = (): number => this.current;

  set(ms: number): void {
    this.current = ms;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}
