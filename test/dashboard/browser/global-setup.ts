import type { TestProject } from 'vitest/node';
import { findChromium, type ChromiumBinary } from './chromium-binary.js';

/*
 * The browser project's global setup: chooses the Chromium once for the run (unpacking the npm
 * package's on first use, about 2 s) and hands it to the test files (`inject('chromium')`).
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Chromium the browser tests launch (test/dashboard/browser/chromium-binary.ts). */
    chromium: ChromiumBinary;
  }
}

export default function setup(project: TestProject): void {
  const started = performance.now();
  const chromium = findChromium();
  console.log(`browser tests: ${chromium.description} (${Math.round(performance.now() - started)} ms)`);
  project.provide('chromium', chromium);
}
