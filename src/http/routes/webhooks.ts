// Admin management of webhook endpoints.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';

export default async function webhookRoutes(_app: FastifyInstance, _deps: AppDeps) {}
