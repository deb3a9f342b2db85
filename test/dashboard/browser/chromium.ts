import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import type { ChromiumBinary } from './chromium-binary.js';
import { OUTCOME_TIMEOUT_MS } from '../../helpers/patience.js';

/**
 * Headless Chromium driven by playwright-core: Debian's where it is installed, else the npm
 * package's (chosen by the project's global setup, see chromium-binary.ts); no browser is ever
 * downloaded. `launch()` gives every run a fresh temporary profile (user-data-dir), removed when
 * the browser closes.
 */
export const CHROMIUM: ChromiumBinary = inject('chromium');
/** The same flags for both browsers; `--no-sandbox` because the tests may run as root. */
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Starts `binary` headless with the tests' flags. */
export function launchChromium(binary: ChromiumBinary): Promise<Browser> {
  const env: Record<string, string> = { ...binary.env };
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !(name in env)) env[name] = value;
  return chromium.launch({ executablePath: binary.executablePath, args: ARGS, env, timeout: OUTCOME_TIMEOUT_MS });
}

/** One browser for the file's tests, closed after them. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium(CHROMIUM);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** What a page did that it must not: dialogs opened, scripts refused by the CSP, uncaught errors. */
export interface PageWatch {
  dialogs: string[];
  errors: string[];
}

/** A fresh context (no cookies) and a page in it, watched for dialogs and errors. */
export async function openPage(browser: Browser, { javaScript = true } = {}): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext({ javaScriptEnabled: javaScript, viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(OUTCOME_TIMEOUT_MS);
  const page = await context.newPage();
  const watch: PageWatch = { dialogs: [], errors: [] };
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => watch.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') watch.errors.push(message.text());
  });
  return { context, page, watch };
}

interface AxeViolation {
  id: string;
  impact: string;
  targets: string[];
}

/** Runs axe-core in the page (evaluated through the driver, so the page's CSP stays as it is); returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // Runs in the page (a string, since this file is compiled without the DOM's types).
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) =>
    result.violations.map((violation) => ({ id: violation.id, impact: violation.impact || '', targets: violation.nodes.map((node) => node.target.join(' ')) })))`);
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Every page must pass: no serious or critical accessibility violation. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page), page.url()).toEqual([]);
}
