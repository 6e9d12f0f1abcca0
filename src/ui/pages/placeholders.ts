// Webhooks and Events: not in this version of perch yet; the pages say so instead of a dead link.
import type { FastifyInstance } from 'fastify';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import { sessionOf } from '../session.ts';

export function registerPlaceholders(app: FastifyInstance): void {
  for (const [section, title] of [['webhooks', 'Webhooks'], ['events', 'Events']] as const) {
    app.get(`/ui/${section}`, { config: { access: 'public', ui: 'app' } }, async (request, reply) => {
      const body = html`<h1>${title}</h1><section class="empty"><p>${title} are not available in this version of perch yet. The API reference lists what is: <a href="/api/docs">/api/docs</a>.</p></section>`;
      return reply.type('text/html; charset=utf-8').send(layout({ title, session: sessionOf(request), section, body }).text);
    });
  }
}
