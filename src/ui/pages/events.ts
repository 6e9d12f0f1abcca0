// Events: the latest events as sentences (the raw JSON one click away), newest first, filtered by
// type, platform and account from the events' indexes, following the log as it grows (events.js
// asks /ui/events/feed, with the same filter, for what came after the newest shown). The Overview
// shows the last few.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EVENT_TYPES } from '../../domain/events.ts';
import { PLATFORMS } from '../../domain/platforms.ts';
import type { Store } from '../../services/context.ts';
import { currentEventPosition, readEvents } from '../../services/events.ts';
import { OneOfOrAny, Query, Text } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { eventCell } from '../sentences.ts';
import { sessionOf } from '../session.ts';

const SHOWN = 50;
const FEED_MAX = 100;

type EventRow = Awaited<ReturnType<typeof readEvents>>['data'][number];

const eventRow = (e: EventRow) => html`<tr data-seq="${e.seq}" data-type="${e.type}">
  <td>${when(e.createdAt)}</td>
  <td>${eventCell(e)}</td>
</tr>`;

export function eventRows(events: EventRow[]): Html {
  return html`${events.map(eventRow)}`;
}

/** Which events a page shows: a type, a platform, an account's username (each optional). */
const FilterFields = {
  type: Type.Optional(OneOfOrAny(EVENT_TYPES)),
  platform: Type.Optional(OneOfOrAny(PLATFORMS)),
  username: Type.Optional(Text(100)),
};
const FilterQuery = Query(FilterFields);
type Filter = Static<typeof FilterQuery>;

/** The filter as the event log's query: empty fields are no filter; a username is keyed like the API keys it. */
function eventFilter(filter: Filter) {
  const username = filter.username?.trim().replace(/^@/, '').toLowerCase();
  return {
    types: filter.type ? [filter.type] : undefined,
    platform: filter.platform || undefined,
    usernameKey: username || undefined,
  };
}

/** The newest `count` events (of the filter), newest first, and the position after which new ones start. */
export async function latestEvents(
  store: Store,
  count: number,
  filter: Filter = {},
): Promise<{ events: EventRow[]; position: number }> {
  const position = await currentEventPosition(store);
  const page = await readEvents(store, { after: 0, limit: count, newest: true, ...eventFilter(filter) });
  return { events: page.data.reverse(), position };
}

export function eventsTable(events: EventRow[], position: number, filter: Filter = {}): Html {
  const none = html`<p class="hint" id="no-events">No events yet: they appear here as the tracker checks accounts and imports run.</p>`;
  const query = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => !!e[1])).toString();
  return html`<div class="table-wrap">
<table id="events" class="events" data-after="${position}" data-filter="${query}" aria-live="polite">
<thead>
<tr>
  <th scope="col">When</th>
  <th scope="col">What happened</th>
</tr>
</thead>
<tbody>
${eventRows(events)}
</tbody>
</table>
</div>
${events.length === 0 ? none : ''}`;
}

function filterForm(filter: Filter): Html {
  const option = (value: string, chosen: string | undefined, label = value) =>
    html`<option value="${value}"${value === (chosen ?? '') ? html` selected` : ''}>${label}</option>`;
  return html`<form class="filters" method="get" action="/ui/events" role="search">
  <div>
    <label for="type">Type</label>
    <select id="type" name="type">
      ${option('', filter.type, 'Any')}
      ${EVENT_TYPES.map((t) => option(t, filter.type))}
    </select>
  </div>
  <div>
    <label for="platform">Platform</label>
    <select id="platform" name="platform">
      ${option('', filter.platform, 'Any')}
      ${PLATFORMS.map((p) => option(p, filter.platform))}
    </select>
  </div>
  <div>
    <label for="username">Account</label>
    <input id="username" name="username" value="${filter.username ?? ''}" placeholder="Username" autocomplete="off">
  </div>
  <div>
    <button type="submit">Filter</button>
  </div>
</form>`;
}

/** `after`: the position the page's newest row was at; without it, the feed starts now. */
const FeedQuery = Query({
  ...FilterFields,
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});

export function registerEventsPage(root: FastifyInstance, store: Store): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'app' } } as const;
  app.get('/ui/events', { ...route, schema: { querystring: FilterQuery } }, async (request, reply) => {
    const filter = request.query;
    const { events, position } = await latestEvents(store, SHOWN, filter);
    const body = html`<h1>Events</h1>
<p>The latest ${SHOWN} events; new ones appear at the top as they happen. The API serves them too (<a href="/api/docs">/api/docs</a>).</p>
${filterForm(filter)}
${eventsTable(events, position, filter)}`;
    const page = layout({
      title: 'Events',
      session: sessionOf(request),
      section: 'events',
      body,
      scripts: ['events.js'],
    });
    return sendPage(reply, page);
  });

  // What came after `after` (of the filter), oldest first, as table rows for events.js.
  app.get('/ui/events/feed', { ...route, schema: { querystring: FeedQuery } }, async (request, reply) => {
    const { after: given, ...filter } = request.query;
    const after = given ?? (await currentEventPosition(store));
    const page = await readEvents(store, { after, limit: FEED_MAX, ...eventFilter(filter) });
    return reply
      .type('application/json; charset=utf-8')
      .send({ after: page.nextSeq, rows: eventRows([...page.data].reverse()).text });
  });
}
