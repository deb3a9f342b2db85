/**
 * How long a test that starts processes, compilers, installs, servers or a browser waits for an
 * outcome before it calls it a hang. Not a bound on speed (speed is measured in the benchmarks,
 * side by side): on a loaded 2-core machine a `tsc` run, an `npm install` or a `next build` may
 * take many times what it takes on an idle one, and a test must then wait, not fail. It is the
 * integration, postgres, slow and browser projects' test and hook timeout (vitest.config.ts), and
 * the default wait of the helpers that watch for a process's output.
 */
export const OUTCOME_TIMEOUT_MS = 600_000;
