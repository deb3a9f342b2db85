import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEBIAN_CHROMIUM, findChromium, isExecutable, NPM_CHROMIUM_PACKAGE, npmChromiumVersion } from './chromium-binary.js';
import { CHROMIUM, launchChromium } from './chromium.js';

const npmVersion = npmChromiumVersion();
/** The package's major version is the major version of the Chromium it ships (147.0.0 → Chromium 147). */
const npmMajor = npmVersion.split('.')[0]!;

/** The major version a Chromium binary reports, as `chromium --version` prints it. */
function majorOf(executable: string): string {
  return /(\d+)\.\d+\.\d+/.exec(execFileSync(executable, ['--version'], { encoding: 'utf8' }))![1]!;
}

describe('the Chromium the browser tests drive', () => {
  it(`is Debian's where ${DEBIAN_CHROMIUM} is installed, else the one ${NPM_CHROMIUM_PACKAGE} ships`, async () => {
    const debian = isExecutable(DEBIAN_CHROMIUM);
    expect(CHROMIUM.source).toBe(debian ? 'debian' : 'npm');
    const browser = await launchChromium(CHROMIUM);
    try {
      expect(browser.version().split('.')[0]).toBe(debian ? majorOf(DEBIAN_CHROMIUM) : npmMajor);
    } finally {
      await browser.close();
    }
  });

  it('takes Debian’s wherever an executable is at its path, with no environment of its own', () => {
    // Any executable stands in for it here: the choice looks at the path only.
    expect(findChromium({ debianPath: process.execPath })).toEqual({ executablePath: process.execPath, source: 'debian', description: `Debian's Chromium at ${process.execPath}`, env: {} });
  });

  describe(`without Debian's: the one ${NPM_CHROMIUM_PACKAGE} ships, unpacked once into a cache directory`, () => {
    const cacheDirectory = mkdtempSync(join(tmpdir(), 'acct-webhook-chromium-test-'));
    afterAll(() => rmSync(cacheDirectory, { recursive: true, force: true }));

    it('launches headless, lays out text (in its own fonts where the machine has none), and is reused on the next run', async () => {
      const binary = findChromium({ debianPath: join(cacheDirectory, 'no-such-chromium'), cacheDirectory });
      expect(binary).toMatchObject({ source: 'npm', executablePath: join(cacheDirectory, `chromium-${npmVersion}`, 'chromium') });
      expect(readFileSync(binary.env.FONTCONFIG_FILE!, 'utf8')).toContain(`<dir>${join(cacheDirectory, `chromium-${npmVersion}`, 'fonts')}</dir>`);
      const browser = await launchChromium(binary);
      try {
        expect(browser.version().split('.')[0]).toBe(npmMajor);
        const page = await browser.newPage();
        await page.setContent('<p><span id="word">Rechnung</span></p>');
        // Text with no font to draw it in has no width.
        expect((await page.locator('#word').boundingBox())?.width).toBeGreaterThan(10);
      } finally {
        await browser.close();
      }
      expect(findChromium({ debianPath: join(cacheDirectory, 'no-such-chromium'), cacheDirectory })).toEqual(binary);
      expect(readdirSync(cacheDirectory)).toEqual([`chromium-${npmVersion}`]);
    });
  });
});
