// Admin management of alert rules (DESIGN §12): define, list, read with when it fired, change, delete.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  changeAlertRule,
  createAlertRule,
  firingsOf,
  getAlertRule,
  listAlertRuleViews,
  removeAlertRule,
  type AlertDeps,
} from '../../services/alerts.ts';
import { actorOf } from '../auth.ts';
import { Deleted, problems } from '../schemas.ts';
import { AlertRuleChange, AlertRuleView, example, Firing, firingExample, Id, NewAlertRule } from '../alert-schemas.ts';

export default async function alertRoutes(root: FastifyInstance, { alerts }: { alerts: AlertDeps }) {
  const app = root.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/api/admin/alerts', {
    config: { access: 'admin' },
    schema: {
      summary: 'Create an alert rule',
      description:
        'A rule is weighed after each check of an account in its scope; when its condition holds it writes an `alert.triggered` event (to webhooks and the event stream like any event, and by e-mail to its recipients), at most once per account per cooldown. Every bad field is named in one 400.',
      tags: ['alerts'],
      body: NewAlertRule,
      response: { 201: AlertRuleView, ...problems(400, 401, 403, 415, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await createAlertRule(alerts, request.body, actorOf(request))),
  });

  app.get('/api/admin/alerts', {
    config: { access: 'admin' },
    schema: {
      summary: 'List alert rules',
      description: 'Every alert rule, oldest first.',
      tags: ['alerts'],
      response: {
        200: Type.Object({ data: Type.Array(AlertRuleView) }, { examples: [{ data: [example] }] }),
        ...problems(401, 403, 429),
      },
    },
    handler: async () => ({ data: await listAlertRuleViews(alerts) }),
  });

  app.get('/api/admin/alerts/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Read an alert rule',
      description: 'The rule and when it fired: its latest firing per account, newest first (at most 50).',
      tags: ['alerts'],
      params: Id,
      response: {
        200: Type.Object(
          { ...AlertRuleView.properties, firings: Type.Array(Firing) },
          { examples: [{ ...example, firings: [firingExample] }] },
        ),
        ...problems(401, 403, 404, 429),
      },
    },
    handler: async (request) => ({
      ...(await getAlertRule(alerts, request.params.id)),
      firings: await firingsOf(alerts, request.params.id),
    }),
  });

  app.patch('/api/admin/alerts/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Change an alert rule',
      description:
        'Changes the fields given; the others keep their value. A firing already recorded keeps its cooldown.',
      tags: ['alerts'],
      params: Id,
      body: AlertRuleChange,
      response: { 200: AlertRuleView, ...problems(400, 401, 403, 404, 415, 429) },
    },
    handler: async (request) => changeAlertRule(alerts, request.params.id, request.body, actorOf(request)),
  });

  app.delete('/api/admin/alerts/:id', {
    config: { access: 'admin' },
    schema: {
      summary: 'Delete an alert rule',
      description: 'Deletes the rule and its firings (its events stay in the event log).',
      tags: ['alerts'],
      params: Id,
      response: {
        200: Deleted(example.id),
        ...problems(401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      await removeAlertRule(alerts, request.params.id, actorOf(request));
      return { success: true as const, id: request.params.id };
    },
  });
}
