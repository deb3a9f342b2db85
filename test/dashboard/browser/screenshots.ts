import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/**
 * The docs' screenshots are taken by the browser tests, of the pages they test, when
 * UPDATE_SCREENSHOTS=1 (`UPDATE_SCREENSHOTS=1 npm run test:browser`); otherwise nothing is written.
 */
const DIRECTORY = join(import.meta.dirname, '../../../docs/images');

export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(DIRECTORY, { recursive: true });
  await page.screenshot({ path: join(DIRECTORY, `dashboard-${name}.png`), fullPage: false });
}
