import type { RegistrationNamer } from './registration-name.js';
import { html, type Content, type Html } from './html.js';

/** What every page needs to know about the request it answers. */
export interface PageContext {
  /** Links start with it ('' at the root). */
  base: string;
  csrfToken: string;
  hasDispatcher: boolean;
  hasReceiver: boolean;
  /** The dashboard's `registrationName`: what the pages call a registration. */
  registrationName?: RegistrationNamer | undefined;
  /** Set on the portal's pages: its look, and whether the business may only read. */
  portal?: PortalLook;
}

/** The portal's title, logo and access, as its pages show them. */
export interface PortalLook {
  title: string;
  logoUrl: string | undefined;
  readOnly: boolean;
}

/** Whether the page may offer actions: everywhere but a portal opened with `read` access. */
export function mayAct(context: PageContext): boolean {
  return context.portal?.readOnly !== true;
}

export type Section = 'webhooks' | 'deliveries' | 'receiver' | 'quarantine' | 'inbox' | 'overview' | 'catalog';

interface NavItem {
  section: Section;
  label: string;
  path: string;
  needs: 'dispatcher' | 'receiver' | 'any';
}

const NAV: readonly NavItem[] = [
  { section: 'overview', label: 'Overview', path: '/', needs: 'any' },
  { section: 'webhooks', label: 'Registrations', path: '/webhooks', needs: 'dispatcher' },
  { section: 'deliveries', label: 'Deliveries', path: '/deliveries', needs: 'dispatcher' },
  { section: 'receiver', label: 'Received events', path: '/receiver/events', needs: 'receiver' },
  { section: 'quarantine', label: 'Quarantine', path: '/receiver/quarantine', needs: 'receiver' },
  { section: 'inbox', label: 'Inbox', path: '/receiver/inbox', needs: 'receiver' },
];

function shown(item: NavItem, context: PageContext): boolean {
  if (item.needs === 'dispatcher') return context.hasDispatcher;
  if (item.needs === 'receiver') return context.hasReceiver;
  return true;
}

/** A whole page: the navigation, the heading and the content. */
export function page(context: PageContext, section: Section, title: string, content: Content): Html {
  if (context.portal) return portalPage(context, context.portal, section, title, content);
  const nav = NAV.filter((item) => shown(item, context)).map(
    (item) => html`<li><a href="${context.base}${item.path}"${item.section === section ? html` aria-current="page"` : ''}>${item.label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · acct-webhook dashboard</title>
<link rel="stylesheet" href="${context.base}/assets/dashboard.css">
<link rel="icon" href="${context.base}/assets/favicon.svg" type="image/svg+xml">
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header><span class="brand">acct-webhook</span><nav aria-label="Dashboard"><ul>${nav}</ul></nav></header>
<main id="main">
<h1>${title}</h1>
${content}
</main>
<script src="${context.base}/assets/dashboard.js" defer></script>
</body>
</html>
`;
}

const PORTAL_NAV: readonly Pick<NavItem, 'section' | 'label' | 'path'>[] = [
  { section: 'webhooks', label: 'Webhooks', path: '/webhooks' },
  { section: 'deliveries', label: 'Deliveries', path: '/deliveries' },
  { section: 'catalog', label: 'Event types', path: '/event-types' },
];

/** A page of the portal: the platform's title and logo, its theme, the portal's own navigation. */
function portalPage(context: PageContext, look: PortalLook, section: Section, title: string, content: Content): Html {
  const nav = PORTAL_NAV.map((item) => html`<li><a href="${context.base}${item.path}"${item.section === section ? html` aria-current="page"` : ''}>${item.label}</a></li>`);
  const logo = look.logoUrl === undefined ? '' : html`<img class="logo" src="${look.logoUrl}" alt="" height="28">`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${look.title}</title>
<link rel="stylesheet" href="${context.base}/assets/dashboard.css">
<link rel="stylesheet" href="${context.base}/assets/portal-theme.css">
</head>
<body class="portal">
<a class="skip" href="#main">Skip to the content</a>
<header>${logo}<span class="brand">${look.title}</span><nav aria-label="Webhooks"><ul>${nav}</ul></nav>${look.readOnly ? html`<span class="muted">read only</span>` : ''}</header>
<main id="main">
<h1>${title}</h1>
${content}
</main>
<script src="${context.base}/assets/dashboard.js" defer></script>
</body>
</html>
`;
}

/** A POST form with the CSRF token: one button, optional hidden fields (none on a read-only portal page). */
export function actionForm(context: PageContext, path: string, label: string, { fields = {}, style = '' }: { fields?: Record<string, string>; style?: string } = {}): Content {
  if (!mayAct(context)) return '';
  const hidden = Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form method="post" action="${context.base}${path}">${csrfField(context)}${hidden}<button type="submit"${style ? html` class="${style}"` : ''}>${label}</button></form>`;
}

export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrfToken}">`;
}

/** A message at the top of a page: the result of an action, or why it was refused. */
export function notice(text: string | undefined, kind: 'notice' | 'problem' = 'notice'): Content {
  if (text === undefined) return '';
  return html`<p class="${kind}" role="${kind === 'problem' ? 'alert' : 'status'}">${text}</p>`;
}

/** An ISO time as a readable UTC string inside <time>. */
export function timeOf(iso: string | null | undefined): Content {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

/** A status word with its colour class. */
export function statusBadge(status: string, label = status.replace('_', ' ')): Html {
  return html`<span class="status status-${status}">${label}</span>`;
}

/** Pretty-printed JSON when the text is JSON, the text as it is otherwise; with a copy button. */
export function codeBlock(id: string, label: string, text: string): Html {
  return html`<div class="actions"><button type="button" class="secondary" data-copy="${id}" hidden>Copy ${label}</button><span id="${id}-status" role="status" class="muted"></span></div>
<pre id="${id}" tabindex="0" role="region" aria-label="${label}">${prettyJson(text)}</pre>`;
}

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
