import { html, type Html } from './html.js';

/** Where a list page stands: "Showing 51–100 of 2,345 deliveries · page 2 of 47", with the links to the pages around it. */
export interface PagePosition {
  total: number;
  /** The page shown, from 1. */
  current: number;
  pageSize: number;
  /** How many rows the page shows. */
  shown: number;
  /** What the rows are, plural ("deliveries"). */
  noun: string;
  /** The URL of another page (keeping the filters). */
  link: (page: number) => string;
}

/** The last page of a list of `total` rows (1 for an empty one). */
export function lastPageOf(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** The page the URL asks for (`page`), within the list: 1 for anything that is not a page number. */
export function pageOf(query: URLSearchParams, lastPage: number): number {
  const page = Number(query.get('page') ?? '1');
  return Math.min(Number.isSafeInteger(page) && page >= 1 ? page : 1, lastPage);
}

/** The position line above and below a list. */
export function pagePosition({ total, current, pageSize, shown, noun, link }: PagePosition): Html {
  const lastPage = lastPageOf(total, pageSize);
  const first = total === 0 ? 0 : (current - 1) * pageSize + 1;
  const last = total === 0 ? 0 : first + shown - 1;
  return html`<p class="pager" aria-live="polite"><span>Showing <strong>${first}–${last}</strong> of <strong>${total.toLocaleString('en')}</strong> ${noun} · page ${current} of ${lastPage}</span>
${current > 1 ? html`<a href="${link(current - 1)}" rel="prev">← Newer</a>` : ''}
${current < lastPage ? html`<a href="${link(current + 1)}" rel="next">Older →</a>` : ''}</p>`;
}
