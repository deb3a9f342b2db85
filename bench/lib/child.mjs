import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Starts `node script ...args`, waits for its first stdout line (JSON), and returns it with the
 * child. Used for the servers under test (they print {"port"}) and the load generator.
 */
export async function startChild(script, args = [], options = {}) {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...options.env } });
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { child, message: JSON.parse(line) };
}

/** Runs `node script ...args` to completion and returns its last stdout line as JSON. */
export async function runChild(script, args = []) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1));
}

export async function stop(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
