import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * The docs' screenshots are taken by the browser tests, of the pages they test, when
 * UPDATE_SCREENSHOTS=1 (`UPDATE_SCREENSHOTS=1 npm run test:browser`); otherwise nothing is written.
 */
const DIRECTORY = join(import.meta.dirname, '../../../docs/images');

/** What to take: the viewport (the default), the whole page, or one element (a CSS selector); `file` instead of `dashboard-<name>.png`. */
export interface ScreenshotOptions {
  fullPage?: boolean;
  element?: string;
  file?: string;
}

/** Writes docs/images/dashboard-<name>.png (or `file` there) when UPDATE_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string, options: ScreenshotOptions = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(DIRECTORY, { recursive: true });
  const path = join(DIRECTORY, options.file ?? `dashboard-${name}.png`);
  if (options.element !== undefined) await page.locator(options.element).first().screenshot({ path });
  else await page.screenshot({ path, fullPage: options.fullPage ?? false });
}
