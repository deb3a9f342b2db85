import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Every link between README.md and the pages of docs/ leads somewhere: the file exists, and an
 * anchor names one of its headings (GitHub's rule: lower case, punctuation dropped, spaces to
 * hyphens).
 */

const pages = ['README.md', ...readdirSync('docs').filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

function anchorsOf(file: string): Set<string> {
  const headings = readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((line) => /^#{1,6} /.test(line));
  return new Set(headings.map((line) => slug(line.replace(/^#+ /, ''))));
}

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{Letter}\p{Number}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function localLinks(file: string): { target: string; anchor: string }[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((href) => !/^[a-z]+:/.test(href))
    .map((href) => {
      const [path = '', anchor = ''] = href.split('#');
      return { target: path === '' ? file : normalize(join(dirname(file), path)), anchor };
    });
}

const links = pages.flatMap((page) =>
  localLinks(page).map((link) => [`${page} → ${link.target}${link.anchor ? `#${link.anchor}` : ''}`, link] as const),
);

describe('the links between README.md and docs/', () => {
  it('finds some', () => expect(links.length).toBeGreaterThan(20));

  it.each(links)('%s leads somewhere', (_label, link) => {
    expect(existsSync(link.target)).toBe(true);
    if (link.anchor !== '') expect([...anchorsOf(link.target)]).toContain(link.anchor);
  });
});

/** Every `<path>.md` (with its `#anchor`) a file of src/ names, read from the repository's root. */
function citedInSources(): (readonly [string, { target: string; anchor: string }])[] {
  const sources = readdirSync('src', { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.ts'));
  return sources.flatMap((entry) => {
    const file = join(entry.parentPath, entry.name);
    return [...readFileSync(file, 'utf8').matchAll(/(?<![\w./-])((?:[\w.-]+\/)*[\w.-]+\.md)(?:#([\w-]+))?/g)].map(
      (match) => [`${file} → ${match[0]}`, { target: match[1]!, anchor: match[2] ?? '' }] as const,
    );
  });
}

describe('the Markdown files the sources cite', () => {
  const cited = citedInSources();
  it('finds some', () => expect(cited.length).toBeGreaterThan(0));

  it.each(cited)('%s is in the repository', (_label, link) => {
    expect(existsSync(link.target)).toBe(true);
    if (link.anchor !== '') expect([...anchorsOf(link.target)]).toContain(link.anchor);
  });
});
