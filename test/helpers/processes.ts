import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a node script that prints `{"port": N}` on its first stdout line once it listens on
 * 127.0.0.1, and returns its URL. `stop()` ends it (SIGTERM, then SIGKILL after a grace period).
 */
export async function startChildServer(script: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ChildServer> {
  const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before listening: ${stderr}`)));
  });
  const { port } = JSON.parse(firstLine) as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: () => stopChild(child),
  };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}
