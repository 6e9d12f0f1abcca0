// The Alerts pages in Chromium at 375 px, by keyboard only: a rule is created (a refused value is
// named at its field, the other values kept), edited, fires at a check, and its page shows when.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';
import { fitsWidth, openBrowser, screenshot, signIn, skipReason } from './harness.ts';

const admin = { 'x-api-key': ADMIN_KEY };

/** Types into the focused control, replacing what it holds. */
async function typeOver(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}
const focused = (page: Page) => page.evaluate<string | null>("document.activeElement?.getAttribute('name') ?? null");

test(
  'create, correct, edit and read an alert rule at 375 px by keyboard',
  { skip: skipReason() ?? false, timeout: 90_000 },
  async (t) => {
    const x = await startFakeX();
    t.after(() => x.close());
    x.addUser({ username: 'ann', followers: 2_000 });
    const api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url });
    const imported = await api.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'username,tags\nann,news\n' },
    });
    assert.equal(imported.statusCode, 200);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
    const { page } = await openBrowser(t, { width: 375, height: 812 });
    await signIn(page, base, ADMIN_KEY);
    await page.goto(`${base}/ui/alerts`);
    assert.equal(await page.getByRole('link', { name: 'Alerts' }).getAttribute('aria-current'), 'page');
    assert.ok(await fitsWidth(page), 'the Alerts page fits 375 px');

    // Keyboard only from the first field: Tab moves, letters pick options, Enter submits.
    await page.getByLabel('Name').focus();
    await page.keyboard.type('Big jumps');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'metric');
    await page.keyboard.press('Tab');
    assert.equal(await focused(page), 'kind');
    await page.keyboard.type('c'); // "changes by % within a window"
    await page.keyboard.press('Tab');
    await page.keyboard.type('0'); // refused: a change of 0 % never means anything
    await page.keyboard.press('Tab');
    await typeOver(page, '24');
    for (const name of ['sensitivity', 'tags']) {
      await page.keyboard.press('Tab');
      assert.equal(await focused(page), name);
    }
    await page.keyboard.type('news');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    const problem = page.getByRole('alert');
    assert.match(await problem.innerText(), /condition\/changePercent: must be a non-zero percentage/);
    const amount = page.getByLabel('Amount');
    assert.equal(await amount.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Name').inputValue(), 'Big jumps');
    assert.equal(await page.getByLabel('Tags').inputValue(), 'news');
    assert.equal(await page.getByLabel('Fires when it').inputValue(), 'changePercent');
    assert.ok(await fitsWidth(page), 'the refused form fits 375 px');
    await screenshot(page, 'alerts-refused-375');

    await amount.focus();
    await typeOver(page, '10');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/ui\/alerts\/alr_\w+\?done=created$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Big jumps');
    assert.match(
      await page.locator('main').innerText(),
      /followers changes 10 % in 24 h; tagged news; at most once per account per 24h/,
    );
    assert.match(await page.locator('main').innerText(), /It has not fired yet/);

    // Edit: above 1,000, a 6 h cooldown, by keyboard again.
    await page.getByLabel('Fires when it').focus();
    await page.keyboard.type('is a'); // "is above"
    await page.keyboard.press('Tab');
    await typeOver(page, '1000');
    await page.getByLabel('Cooldown').focus();
    await typeOver(page, '6h');
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=saved$/);
    assert.match(
      await page.locator('main').innerText(),
      /followers above 1000; tagged news; at most once per account per 6h/,
    );

    await api.tracker?.tick();
    await page.reload();
    const fired = page.locator('#firings tbody tr');
    assert.equal(await fired.count(), 1);
    assert.match(await fired.first().innerText(), /@ann[\s\S]*2,000[\s\S]*1/);
    assert.equal(await fired.getByRole('link', { name: '@ann' }).getAttribute('href'), '/ui/accounts/x/ann');
    assert.ok(await fitsWidth(page), 'the rule page fits 375 px');
    await screenshot(page, 'alert-rule-375');
    await page.getByLabel('Name').focus();
    await screenshot(page, 'alert-rule-form-375');
  },
);
