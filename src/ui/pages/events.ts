// Events: the latest events, newest first, following the event log as it grows (events.js asks
// /ui/events/feed for what came after the newest shown). The Overview shows the last few.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../services/context.ts';
import { currentEventPosition, readEvents } from '../../services/events.ts';
import { Query } from '../forms.ts';
import { when } from '../format.ts';
import { html, type Html } from '../html.ts';
import { layout, sendPage } from '../layout.ts';
import { sessionOf } from '../session.ts';

const SHOWN = 50;
const FEED_MAX = 100;

type EventRow = Awaited<ReturnType<typeof readEvents>>['data'][number];

/** What an event is about, in a few words (its data as compact JSON). */
export function eventSummary(event: EventRow): string {
  const text = JSON.stringify(event.data);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

const eventRow = (e: EventRow) => html`<tr data-seq="${e.seq}">
  <td>${when(e.createdAt)}</td>
  <td><code>${e.type}</code></td>
  <td><code>${eventSummary(e)}</code></td>
</tr>`;

export function eventRows(events: EventRow[]): Html {
  return html`${events.map(eventRow)}`;
}

/** The newest `count` events, newest first, and the position after which new ones start. */
export async function latestEvents(store: Store, count: number): Promise<{ events: EventRow[]; position: number }> {
  const position = await currentEventPosition(store);
  const page = await readEvents(store, { after: Math.max(0, position - count), limit: count });
  return { events: page.data.reverse(), position };
}

export function eventsTable(events: EventRow[], position: number): Html {
  const none = html`<p class="hint" id="no-events">No events yet: they appear here as the tracker checks accounts and imports run.</p>`;
  return html`<div class="table-wrap">
<table id="events" data-after="${position}" aria-live="polite">
<thead>
<tr>
  <th scope="col">When</th>
  <th scope="col">Type</th>
  <th scope="col">Data</th>
</tr>
</thead>
<tbody>
${eventRows(events)}
</tbody>
</table>
</div>
${events.length === 0 ? none : ''}`;
}

/** `after`: the position the page's newest row was at; without it, the feed starts now. */
const FeedQuery = Query({ after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })) });

export function registerEventsPage(root: FastifyInstance, store: Store): void {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();
  const route = { config: { access: 'public', ui: 'app' } } as const;
  app.get('/ui/events', route, async (request, reply) => {
    const { events, position } = await latestEvents(store, SHOWN);
    const body = html`<h1>Events</h1>
<p>The latest ${SHOWN} events; new ones appear at the top as they happen. The API serves them too (<a href="/api/docs">/api/docs</a>).</p>
${eventsTable(events, position)}`;
    const page = layout({
      title: 'Events',
      session: sessionOf(request),
      section: 'events',
      body,
      scripts: ['events.js'],
    });
    return sendPage(reply, page);
  });

  // What came after `after`, oldest first, as table rows for events.js.
  app.get('/ui/events/feed', { ...route, schema: { querystring: FeedQuery } }, async (request, reply) => {
    const after = request.query.after ?? (await currentEventPosition(store));
    const page = await readEvents(store, { after, limit: FEED_MAX });
    return reply
      .type('application/json; charset=utf-8')
      .send({ after: page.nextSeq, rows: eventRows([...page.data].reverse()).text });
  });
}
