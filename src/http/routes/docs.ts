// The OpenAPI 3.1 document at /api/openapi.json and its rendered reference at /api/docs.
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export default async function docsRoutes(app: FastifyInstance) {
  // Documentation is public: every route registered in this scope is marked so.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, access: 'public', rateLimit: false };
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(swaggerUi, { routePrefix: '/api/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
