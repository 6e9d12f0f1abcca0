// Accounts: the tracked accounts in a table, with the API's username prefix search, filters,
// sorts and cursor paging. A plain GET form, so it works without scripts and links can be shared.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ACCOUNT_SORTS, ACCOUNT_STATUSES, type Account, type AccountSort } from '../../domain/account.ts';
import { PLATFORMS } from '../../domain/platforms.ts';
import { decodeCursor, encodeCursor } from '../../http/cursor.ts';
import { literals } from '../../http/schemas.ts';
import { countMatchingAccounts, listAccountPage } from '../../services/accounts.ts';
import type { ServiceDeps } from '../../services/context.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { OneOfOrAny, Query, Text } from '../forms.ts';
import { accountHref, num, signed, statusBadge, when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

const PAGE = 50;
const SORT_LABELS: Record<AccountSort, string> = {
  username: 'Username (A–Z)',
  '-followers': 'Most followers',
  '-followersChange7d': 'Most followers gained in 7 days',
  '-lastCheckedAt': 'Checked most recently',
};

/** The filter form's fields (and the pager's links): "Any" is the empty string. */
const FiltersQuery = Query({
  q: Type.Optional(Text(200)),
  platform: Type.Optional(OneOfOrAny(PLATFORMS)),
  status: Type.Optional(OneOfOrAny(ACCOUNT_STATUSES)),
  tag: Type.Optional(Text(200)),
  sort: Type.Optional(literals(ACCOUNT_SORTS)),
  cursor: Type.Optional(Text(1_000)),
});

type Filters = Required<Static<typeof FiltersQuery>>;

function filtersOf(query: Static<typeof FiltersQuery>): Filters {
  return {
    q: (query.q ?? '').trim(),
    platform: query.platform ?? '',
    status: query.status ?? '',
    tag: (query.tag ?? '').trim(),
    sort: query.sort ?? 'username',
    cursor: (query.cursor ?? '').trim(),
  };
}

const option = (value: string, label: string, selected: string) =>
  html`<option value="${value}"${value === selected ? html` selected` : ''}>${label}</option>`;

const filterForm = (f: Filters) => html`<form class="filters" method="get" action="/ui/accounts" role="search">
  <div>
    <label for="q">Search</label>
    <input id="q" name="q" type="search" value="${f.q}" placeholder="Username starts with…" autocomplete="off">
  </div>
  <div>
    <label for="platform">Platform</label>
    <select id="platform" name="platform">
      ${option('', 'Any', f.platform)}
      ${PLATFORMS.map((p) => option(p, p, f.platform))}
    </select>
  </div>
  <div>
    <label for="status">Status</label>
    <select id="status" name="status">
      ${option('', 'Any', f.status)}
      ${ACCOUNT_STATUSES.map((s) => option(s, s.replace('_', ' '), f.status))}
    </select>
  </div>
  <div>
    <label for="tag">Tag</label>
    <input id="tag" name="tag" value="${f.tag}" autocomplete="off">
  </div>
  <div>
    <label for="sort">Sort</label>
    <select id="sort" name="sort">
      ${ACCOUNT_SORTS.map((s) => option(s, SORT_LABELS[s], f.sort))}
    </select>
  </div>
  <div class="actions">
    <button type="submit">Apply</button>
  </div>
</form>`;

function accountRow(a: Account): Html {
  const change = (a.analysis as { followers?: { change7d?: number | null } } | null)?.followers?.change7d ?? null;
  return html`<tr>
  <td><a href="${accountHref(a.platform, a.username)}">${a.username}</a></td>
  <td>${a.platform}</td>
  <td>${statusBadge(a.status)}</td>
  <td class="n">${num(a.metrics?.followers)}</td>
  <td class="n">${signed(change)}</td>
  <td>${when(a.tracking.lastCheckedAt)}</td>
  <td>${a.tags.join(', ')}</td>
</tr>`;
}

const accountsTable = (f: Filters, rows: Account[]) => html`<div class="table-wrap">
<table id="accounts">
<caption>${f.cursor ? 'Accounts (a later page)' : 'Accounts'}</caption>
<thead>
<tr>
  <th scope="col">Username</th>
  <th scope="col">Platform</th>
  <th scope="col">Status</th>
  <th scope="col" class="n">Followers</th>
  <th scope="col" class="n">7 days</th>
  <th scope="col">Last checked</th>
  <th scope="col">Tags</th>
</tr>
</thead>
<tbody>
${rows.map(accountRow)}
</tbody>
</table>
</div>`;

function emptyText(session: UiSession, filtered: boolean): Html {
  if (filtered)
    return html`<p class="empty">No account matches these filters. <a href="/ui/accounts">Clear the filters</a>.</p>`;
  const start =
    session.role === 'admin'
      ? html`<a href="/ui/import">Import a CSV file</a> to start.`
      : 'Ask an administrator to import some.';
  return html`<p class="empty">No accounts are tracked yet. ${start}</p>`;
}

export function registerAccountsPage(root: FastifyInstance, accounts: ServiceDeps): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/ui/accounts',
    { config: { access: 'public', ui: 'app' }, schema: { querystring: FiltersQuery } },
    async (request, reply) => {
      const session = sessionOf(request);
      const f = filtersOf(request.query);
      const after = f.cursor
        ? decodeCursor(f.cursor, f.sort, [f.sort === 'username' ? 'text' : 'int', 'int'] as const)
        : undefined;
      // "Any" (the empty string) is no filter.
      const filters = {
        status: f.status || undefined,
        platform: f.platform || undefined,
        tag: f.tag || undefined,
        q: f.q || undefined,
      };
      const [page, count] = await Promise.all([
        listAccountPage(accounts, filters, { sort: f.sort, limit: PAGE, after }),
        countMatchingAccounts(accounts, filters),
      ]);
      const base = { q: f.q, platform: f.platform, status: f.status, tag: f.tag, sort: f.sort };
      const keep = Object.fromEntries(Object.entries(base).filter(([, v]) => v !== ''));
      const next =
        page.more && page.last
          ? `/ui/accounts?${new URLSearchParams({ ...keep, cursor: encodeCursor([f.sort, ...page.last]) })}`
          : null;
      const filtered = Boolean(f.q || f.platform || f.status || f.tag);
      const first = f.cursor ? html`<a href="/ui/accounts?${new URLSearchParams(keep).toString()}">First page</a>` : '';
      const body = html`<h1>Accounts</h1>
${filterForm(f)}
<p id="match-count">${count === 1 ? '1 account matches' : `${num(count)} accounts match`}</p>
${page.data.length === 0 ? emptyText(session, filtered) : accountsTable(f, page.data)}
<nav class="pager" aria-label="Pages">
  ${first}
  ${next ? html`<a href="${next}" rel="next">Next page</a>` : ''}
</nav>`;
      return sendPage(reply, layout({ title: 'Accounts', session, section: 'accounts', body }));
    },
  );
}
