// An app with webhooks allowed to reach local receivers, and a deliverer on its store driven by
// hand on the app's clock (runOnce sends what is due now; the test moves time).
import type { TestContext } from 'node:test';
import type { Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createDeliverer } from '../../src/webhooks/create-deliverer.ts';
import type { Deliverer } from '../../src/webhooks/deliverer.ts';
import { build, type TestApp } from '../helpers/app.ts';

export interface WebhookWorld extends TestApp {
  deliverer: Deliverer;
  createWebhook(body: Record<string, unknown>): Promise<{ id: string; secret: string }>;
}

export async function webhookWorld(
  t: TestContext,
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
): Promise<WebhookWorld> {
  const h = await build(
    t,
    { tracker: false, ...overrides },
    { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT: '5s', ...env },
  );
  const deliverer = createDeliverer(h.config, h.deps.store, createLogger('silent'), h.deps.keyHashSecret, {
    clock: { now: h.clock.now, sleep: async () => {} },
  });
  return {
    ...h,
    deliverer,
    async createWebhook(body) {
      const response = await h.admin('POST', '/api/admin/webhooks', body);
      if (response.statusCode !== 201) throw new Error(`webhook creation failed: ${JSON.stringify(response.json())}`);
      return response.json();
    },
  };
}
