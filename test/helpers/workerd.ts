import { request as httpRequest } from 'node:http';
import type { Readable } from 'node:stream';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { dist } from './dist.js';

/*
 * Workers in workerd, Cloudflare's runtime (the npm package, through miniflare, on 127.0.0.1),
 * for the tests of acct-webhook/web: a Worker's source bundled with the built package as wrangler
 * bundles one, and started with or without nodejs_compat.
 */

/**
 * Bundles a Worker's source as wrangler does: neutral platform, the Worker conditions, and no
 * Node.js built-in to resolve (without nodejs_compat). Imports resolve from dist/ and this
 * repository's node_modules.
 */
export async function bundleWorker(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, resolveDir: dist, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A bundled Worker running in workerd on 127.0.0.1; what it printed on stderr is kept. */
export class WorkerdWorker {
  private constructor(
    private readonly miniflare: Miniflare,
    readonly url: URL,
    private readonly output: { stderr: string },
  ) {}

  static async start(script: string, options: { compatibilityFlags: string[]; bindings: Record<string, string> }): Promise<WorkerdWorker> {
    const output = { stderr: '' };
    const miniflare = new Miniflare({
      modules: true,
      script,
      compatibilityDate: '2025-09-01',
      compatibilityFlags: options.compatibilityFlags,
      bindings: options.bindings,
      host: '127.0.0.1',
      handleRuntimeStdio(stdout: Readable, errors: Readable) {
        stdout.resume();
        errors.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
      },
    });
    return new WorkerdWorker(miniflare, await miniflare.ready, output);
  }

  /** What the Worker printed on stderr so far (workerd prints the console there). */
  get stderr(): string {
    return this.output.stderr;
  }

  /**
   * POSTs `body` as JSON to `path` with `headers` on a connection of its own (closed after the
   * answer); the answer's status and JSON body. A connection of its own, because a request the
   * Worker answered before reading its whole body (413) leaves a pooled keep-alive socket that
   * workerd resets, and the next request written to it would fail with ECONNRESET.
   */
  post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = httpRequest(new URL(path, this.url), { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close', ...headers } }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      });
      // An answer that came before the whole body was written (413) may be followed by a reset
      // of the rest of the write: the answer is what the test reads.
      request.on('error', (error) => {
        if (!answered) reject(error);
      });
      request.end(body);
    });
  }

  dispose(): Promise<void> {
    return this.miniflare.dispose();
  }
}
