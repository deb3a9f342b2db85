/** What a route answers; the server adds the rate-limit headers and writes the JSON. */
export interface SandboxResponse {
  status: number;
  /** Written as JSON; none for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** The pagination object of the document's envelope. */
export interface Pagination {
  page: number;
  per_page: number;
  total_count: number;
  total_pages: number;
}

/** The success envelope `{ data }`. */
export function ok(data: unknown, status = 200): SandboxResponse {
  return { status, body: { data } };
}

/** 204 No Content: a deletion that leaves nothing to show. */
export function noContent(): SandboxResponse {
  return { status: 204 };
}
