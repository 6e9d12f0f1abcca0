// Accounts: the tracked accounts in a table, with the API's username prefix search, filters,
// sorts and cursor paging. A plain GET form, so it works without scripts and links can be shared.
import type { FastifyInstance } from 'fastify';
import { ACCOUNT_SORTS, ACCOUNT_STATUSES, type AccountSort, type AccountStatus } from '../../domain/account.ts';
import { isPlatform, PLATFORMS, type Platform } from '../../domain/platforms.ts';
import { decodeCursor, encodeCursor } from '../../http/cursor.ts';
import type { AppDeps } from '../../http/deps.ts';
import { listAccountPage } from '../../services/accounts.ts';
import { accountHref, num, signed, statusBadge, when } from '../format.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import { sessionOf } from '../session.ts';

const PAGE = 50;
const SORT_LABELS: Record<AccountSort, string> = {
  username: 'Username (A–Z)',
  '-followers': 'Most followers',
  '-followersChange7d': 'Most followers gained in 7 days',
  '-lastCheckedAt': 'Checked most recently',
};

interface Filters {
  q: string;
  platform: Platform | '';
  status: AccountStatus | '';
  tag: string;
  sort: AccountSort;
  cursor: string;
}

function filtersOf(query: Record<string, unknown>): Filters {
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string).trim().slice(0, 200) : '');
  const platform = text('platform');
  const status = text('status');
  const sort = text('sort');
  return {
    q: text('q'),
    platform: isPlatform(platform) ? platform : '',
    status: (ACCOUNT_STATUSES as readonly string[]).includes(status) ? (status as AccountStatus) : '',
    tag: text('tag'),
    sort: (ACCOUNT_SORTS as readonly string[]).includes(sort) ? (sort as AccountSort) : 'username',
    cursor: text('cursor'),
  };
}

const option = (value: string, label: string, selected: string) =>
  html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;

export function registerAccountsPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/ui/accounts', { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
    const session = sessionOf(request);
    const f = filtersOf(request.query as Record<string, unknown>);
    const after = f.cursor
      ? decodeCursor(f.cursor, f.sort, [f.sort === 'username' ? 'text' : 'int', 'int'] as const)
      : undefined;
    const page = await listAccountPage(deps, {
      sort: f.sort,
      limit: PAGE,
      ...(f.status ? { status: f.status } : {}),
      ...(f.platform ? { platform: f.platform } : {}),
      ...(f.tag ? { tag: f.tag } : {}),
      ...(f.q ? { q: f.q } : {}),
      ...(after ? { after } : {}),
    });
    const base = { q: f.q, platform: f.platform, status: f.status, tag: f.tag, sort: f.sort };
    const keep = Object.fromEntries(Object.entries(base).filter(([, v]) => v !== ''));
    const next =
      page.more && page.last
        ? `/ui/accounts?${new URLSearchParams({ ...keep, cursor: encodeCursor([f.sort, ...page.last]) })}`
        : null;
    const filtered = f.q || f.platform || f.status || f.tag;
    const empty = filtered
      ? html`<p class="empty">No account matches these filters. <a href="/ui/accounts">Clear the filters</a>.</p>`
      : html`<p class="empty">No accounts are tracked yet. ${session.role === 'admin' ? html`<a href="/ui/import">Import a CSV file</a> to start.` : 'Ask an administrator to import some.'}</p>`;
    const body = html`<h1>Accounts</h1>
<form class="filters" method="get" action="/ui/accounts" role="search">
  <div><label for="q">Search</label><input id="q" name="q" type="search" value="${f.q}" placeholder="Username starts with…" autocomplete="off"></div>
  <div><label for="platform">Platform</label><select id="platform" name="platform">${option('', 'Any', f.platform)}${PLATFORMS.map((p) => option(p, p, f.platform))}</select></div>
  <div><label for="status">Status</label><select id="status" name="status">${option('', 'Any', f.status)}${ACCOUNT_STATUSES.map((s) => option(s, s.replace('_', ' '), f.status))}</select></div>
  <div><label for="tag">Tag</label><input id="tag" name="tag" value="${f.tag}" autocomplete="off"></div>
  <div><label for="sort">Sort</label><select id="sort" name="sort">${ACCOUNT_SORTS.map((s) => option(s, SORT_LABELS[s], f.sort))}</select></div>
  <div class="actions"><button type="submit">Apply</button></div>
</form>
${
  page.data.length === 0
    ? empty
    : html`<div class="table-wrap"><table id="accounts">
<caption>${f.cursor ? 'Accounts (a later page)' : 'Accounts'}</caption>
<thead><tr><th scope="col">Username</th><th scope="col">Platform</th><th scope="col">Status</th><th scope="col" class="n">Followers</th><th scope="col" class="n">7 days</th><th scope="col">Last checked</th><th scope="col">Tags</th></tr></thead>
<tbody>${page.data.map((a) => {
        const change = (a.analysis as { followers?: { change7d?: number | null } } | null)?.followers?.change7d ?? null;
        return html`<tr><td><a href="${accountHref(a.platform, a.username)}">${a.username}</a></td><td>${a.platform}</td><td>${statusBadge(a.status)}</td>
<td class="n">${num(a.metrics?.followers)}</td><td class="n">${signed(change)}</td><td>${when(a.tracking.lastCheckedAt)}</td><td>${a.tags.join(', ')}</td></tr>`;
      })}</tbody></table></div>`
}
<nav class="pager" aria-label="Pages">${f.cursor ? html`<a href="/ui/accounts?${new URLSearchParams(keep).toString()}">First page</a>` : ''}${next ? html`<a href="${next}" rel="next">Next page</a>` : ''}</nav>`;
    return reply
      .type('text/html; charset=utf-8')
      .send(layout({ title: 'Accounts', session, section: 'accounts', body }).text);
  });
}
