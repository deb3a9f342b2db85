import type { AcctWebhookError } from '../kernel/errors.js';
import { html, type Content, type Html } from './html.js';
import { htmlResponse, jsonResponse, wantsHtml, type DashboardResponse } from './http.js';

/**
 * A refusal before the dashboard's own pages are open to the client (not signed in, not
 * authorized, a path it does not serve, an unexpected failure): a page of its own, with no
 * stylesheet or script to load (those would be refused as well), saying what happened and what to
 * do next. API clients get the platform's envelope instead.
 */
export interface Refusal {
  error: AcctWebhookError;
  status: number;
  /** The heading of the page. */
  title: string;
  /** What the person at the browser does next. */
  nextStep: Content;
}

/** The refusal as an HTML page when `accept` names HTML (a browser), as `{error: {code, message, details}}` otherwise. */
export function refusalResponse(accept: string | string[] | undefined, refusal: Refusal): DashboardResponse {
  if (!wantsHtml(accept)) return jsonResponse(refusal.error.toBody(), refusal.status);
  return htmlResponse(refusalPage(refusal), refusal.status);
}

function refusalPage({ error, status, title, nextStep }: Refusal): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · acct-webhook dashboard</title>
</head>
<body>
<main>
<h1>${title}</h1>
<p role="alert">${error.message} <small>(${status} ${error.code})</small></p>
<p>${nextStep}</p>
</main>
</body>
</html>
`;
}
