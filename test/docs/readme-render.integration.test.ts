import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { marked } from 'marked';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../dashboard/browser/chromium-binary.js';

/*
 * README.md as a reader sees it: rendered to HTML here (marked, GitHub-flavoured Markdown) and
 * opened in headless Chromium — Debian's, or the npm package's (test/dashboard/browser/chromium-binary.ts).
 * Its pictures load, its headings and the "Try it" block are where the page promises them.
 * UPDATE_SCREENSHOTS=1 writes the first screen of it to docs/images/readme-front-page.png.
 */
const root = resolve(import.meta.dirname, '..', '..');
/** Roughly GitHub's column: the page as most readers first see it. */
const VIEWPORT = { width: 1012, height: 1500 };
const STYLE = `
  body { font: 16px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; max-width: 980px; margin: 0 auto; padding: 32px 16px; color: #1f2328; }
  h1, h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; } img { max-width: 100%; border: 1px solid #d1d9e0; }
  code { font: 85% ui-monospace, monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
  pre { background: #f6f8fa; padding: 16px; overflow: auto; border-radius: 6px; } pre code { background: none; padding: 0; }
  table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: 6px 13px; } a { color: #0969da; }
`;

describe('README.md rendered in Chromium', () => {
  const directory = mkdtempSync(join(tmpdir(), 'acct-webhook-readme-'));
  let browser: Browser;
  beforeAll(async () => {
    const binary = findChromium();
    browser = await chromium.launch({ executablePath: binary.executablePath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--allow-file-access-from-files'], env: { ...process.env, ...binary.env }, timeout: 30_000 });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('shows the dashboard picture, the feature list and the Try it block on the front page', async () => {
    const body = await marked.parse(readFileSync(join(root, 'README.md'), 'utf8'), { gfm: true });
    const file = join(directory, 'README.html');
    // Relative links and pictures resolve against the repository, as on GitHub.
    writeFileSync(file, `<!doctype html><html lang="en"><head><meta charset="utf-8"><base href="${pathToFileURL(`${root}/`).href}"><style>${STYLE}</style><title>acct-webhook</title></head><body>${body}</body></html>`);
    const page = await browser.newPage({ viewport: VIEWPORT });
    try {
      await page.goto(pathToFileURL(file).href);
      await page.waitForLoadState('load');

      // Every picture loads (a missing file has no natural width).
      const pictures = await page.evaluate<{ src: string; width: number }[]>(`[...document.images].map((image) => ({ src: image.getAttribute('src'), width: image.naturalWidth }))`);
      expect(pictures.map((picture) => picture.src)).toContain('docs/images/dashboard-readme.png');
      for (const picture of pictures) expect(picture.width, picture.src).toBeGreaterThan(0);

      // On the first screen: the title, the dashboard and the feature list's start.
      const top = async (selector: string) => (await page.locator(selector).first().boundingBox())?.y ?? Number.POSITIVE_INFINITY;
      expect(await top('h1')).toBeLessThan(100);
      expect(await top('img[src="docs/images/dashboard-readme.png"]')).toBeLessThan(VIEWPORT.height);
      const features = await page.locator('ul').first().locator(':scope > li > strong').allTextContents();
      for (const feature of ['Receiver', 'Inbox mode and the ordering guard', 'Dashboard', 'Sandbox', 'Metrics']) expect(features).toContain(feature);
      expect(await page.locator('h2', { hasText: 'Try it in a minute' }).count()).toBe(1);

      if (process.env.UPDATE_SCREENSHOTS === '1') {
        mkdirSync(join(root, 'docs', 'images'), { recursive: true });
        await page.screenshot({ path: join(root, 'docs', 'images', 'readme-front-page.png'), fullPage: false });
      }
    } finally {
      await page.close();
    }
  });
});
