// The page shell every dashboard page shares: head with fingerprinted assets, the navigation,
// the signed-in key and its Sign out button, and the CSRF token for scripts; and sendPage, the
// one way a page goes out.
import type { FastifyReply } from 'fastify';
import { maskedCsrf, type UiSession } from '../services/ui-sessions.ts';
import { assetUrl, type AssetName } from './assets.ts';
import { html, type Html, type Part } from './html.ts';

export const NAV = [
  ['overview', 'Overview', '/ui/'],
  ['accounts', 'Accounts', '/ui/accounts'],
  ['compare', 'Compare', '/ui/compare'],
  ['import', 'Import', '/ui/import'],
  ['keys', 'Keys', '/ui/keys'],
  ['webhooks', 'Webhooks', '/ui/webhooks'],
  ['alerts', 'Alerts', '/ui/alerts'],
  ['digests', 'Digests', '/ui/digests'],
  ['events', 'Events', '/ui/events'],
] as const;

export type Section = (typeof NAV)[number][0];

export interface PageOptions {
  title: string;
  session: UiSession | null;
  section?: Section;
  scripts?: AssetName[];
  styles?: AssetName[];
  body: Part;
}

export function csrfField(session: UiSession): Html {
  return html`<input type="hidden" name="_csrf" value="${maskedCsrf(session)}">`;
}

function nav(session: UiSession, section: Section | undefined): Html {
  const link = ([id, label, href]: (typeof NAV)[number]) => html`<li>
      <a href="${href}"${id === section ? html` aria-current="page"` : ''}>${label}</a>
    </li>`;
  return html`<header class="top">
  <a class="brand" href="/ui/">perch</a>
  <nav aria-label="Main">
    <ul>
    ${NAV.map(link)}
    </ul>
  </nav>
  <form class="who" method="post" action="/ui/sign-out">
    ${csrfField(session)}
    <span>${session.username} <span class="role">${session.role}</span></span>
    <button type="submit">Sign out</button>
  </form>
</header>`;
}

export function layout(options: PageOptions): Html {
  const { session } = options;
  const scripts: AssetName[] = ['app.js', ...(options.scripts ?? [])];
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
${session ? html`<meta name="csrf-token" content="${maskedCsrf(session)}">` : ''}
<title>${options.title} · perch</title>
<link rel="stylesheet" href="${assetUrl('app.css')}">
${(options.styles ?? []).map((name) => html`<link rel="stylesheet" href="${assetUrl(name)}">`)}
${scripts.map((name) => html`<script src="${assetUrl(name)}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${session ? nav(session, options.section) : ''}
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>`;
}

/** Sends a rendered page (with `status`, 200 unless said): every dashboard page goes out through here. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page.text);
}

/** A message box: an error (the API's `detail`) or a notice. */
export function notice(kind: 'error' | 'ok', text: string | null | undefined): Html {
  if (!text) return html``;
  return kind === 'error'
    ? html`<p class="notice error" role="alert">${text}</p>`
    : html`<p class="notice ok" role="status">${text}</p>`;
}
