/**
 * The messages a page shows after a redirect, chosen by a fixed key in the query (`?notice=`):
 * a link cannot put text of its own on the page.
 */
export const NOTICES = {
  saved: 'The registration was saved.',
  enabled: 'The registration is enabled: deliveries to it are sent again.',
  'enabled-replayed': 'The registration is enabled, and the events skipped while it was disabled are queued to it again.',
  disabled: 'The registration is disabled: nothing is sent to it until it is enabled.',
  retried: 'The delivery was retried now; its newest attempt is the last one below.',
  'test-sent': 'A test delivery was sent; its first attempt is below.',
  reprocessed: 'The payload went through the handlers and left the quarantine.',
  'inbox-retried': 'The event is pending again; a worker runs its handlers next.',
  deleted: 'The registration was deleted; its delivery log stays.',
} as const satisfies Record<string, string>;

export type NoticeKey = keyof typeof NOTICES;

export function noticeText(key: string | null): string | undefined {
  return key !== null && Object.hasOwn(NOTICES, key) ? NOTICES[key as NoticeKey] : undefined;
}
