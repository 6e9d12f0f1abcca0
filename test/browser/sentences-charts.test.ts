// The dashboard speaks in sentences and draws charts a person trusts, in Chromium: the Overview's
// events read as linked sentences with their JSON one click away, the Events page filters, a chart
// spans the chosen window even with one point and says it has too few, the activity bars have hour
// labels, and the top hashtags and mentions stay one entry a line at 1280 and 375 px.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';
import { fitsWidth, openBrowser, screenshot, signIn, skipReason } from './harness.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const DAY_S = 86_400;

/** The boxes of a list's entries: each below the one before, none overlapping, each one line high. */
async function assertOneEntryALine(page: Page, selector: string): Promise<void> {
  const boxes = await page.locator(selector).evaluateAll((items) =>
    items.map((li) => {
      const r = li.getBoundingClientRect();
      const name = li.querySelector('.name')?.getBoundingClientRect();
      const count = li.querySelector('.count')?.getBoundingClientRect();
      return {
        top: r.top,
        bottom: r.bottom,
        height: r.height,
        nameRight: name?.right ?? 0,
        countLeft: count?.left ?? 0,
      };
    }),
  );
  assert.ok(boxes.length >= 3, `${selector}: ${boxes.length} entries`);
  for (let i = 0; i < boxes.length; i += 1) {
    const box = boxes[i]!;
    assert.ok(box.height < 40, `${selector} entry ${i} is ${box.height}px high (wrapped?)`);
    assert.ok(box.nameRight <= box.countLeft, `${selector} entry ${i}: the name runs into its count`);
    if (i > 0) assert.ok(box.top >= boxes[i - 1]!.bottom - 0.5, `${selector} entries ${i - 1} and ${i} overlap`);
  }
}

test(
  'sentences, filters, chart windows and lists in Chromium',
  { skip: skipReason() ?? false, timeout: 90_000 },
  async (t) => {
    const x = await startFakeX();
    t.after(() => x.close());
    const sable = x.addUser({ username: 'sable_122', followers: 90 });
    const gone = x.addUser({ username: 'sable_112', followers: 40 });
    const ada = x.addUser({ username: 'ada', followers: 120 });
    const api = await build(t, {}, { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url });
    for (let i = 0; i < 6; i += 1)
      x.addPost(ada.id, {
        text: `post ${i}`,
        hashtags: ['perchdashboardlonghashtag', `tag${i % 3}`, 'dash'],
        mentions: [`friend_with_a_long_name_${i % 3}`, 'bob'],
        createdAt: new Date(api.clock.now() - (i + 1) * 3_600_000).toISOString(),
      });
    const csv = 'username\nsable_122\nsable_112\nada\n';
    const imported = await api.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: csv },
    });
    assert.equal(imported.statusCode, 200);
    await api.tracker?.tick();
    // A week and an hour later: a rename, a suspension, a milestone and a week's growth.
    const WEEK_S = 7 * DAY_S + 3_600;
    api.clock.advance(WEEK_S * 1000);
    x.updateUser(ada.id, { followers: 150 });
    x.rename(sable.id, 'maple_000123');
    x.suspend(gone.id);
    x.updateUser(sable.id, { followers: 104 });
    // Registered late: checked once.
    x.addUser({ username: 'newbie', followers: 5 });
    const late = await api.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'username\nnewbie\n' },
    });
    assert.equal(late.statusCode, 200);
    await api.tracker?.tick();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
    const { page } = await openBrowser(t, { width: 1280, height: 900 });
    await signIn(page, base, ADMIN_KEY);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await t.test('the Overview says its events as sentences with links, the JSON one click away', async () => {
      const events = page.locator('#events');
      const renamed = events.locator('tr', { hasText: '@sable_122 is now @maple_000123' });
      await renamed.waitFor();
      assert.equal(
        await renamed.getByRole('link', { name: '@maple_000123' }).getAttribute('href'),
        '/ui/accounts/x/maple_000123',
      );
      await events.locator('tr', { hasText: '@sable_112 was suspended' }).waitFor();
      await events.locator('tr', { hasText: '@maple_000123 passed 100 followers' }).waitFor();
      assert.equal(await events.getByText('"from": "sable_122"').isVisible(), false);
      await renamed.getByText('JSON').click();
      await renamed.getByText('"from": "sable_122"').waitFor();
      assert.ok(!(await events.textContent())?.includes('{"account"'));
      // Top movers over 7 days, as linked sentences, most first.
      const movers = await page.locator('#movers-7d-up li').allInnerTexts();
      assert.deepEqual(
        movers.map((m) => m.trim()),
        ['@ada gained 30 followers in 7 days (+25%)', '@maple_000123 gained 14 followers in 7 days (+15.56%)'],
      );
      assert.equal(
        await page.locator('#movers-7d-up').getByRole('link', { name: '@ada' }).getAttribute('href'),
        '/ui/accounts/x/ada',
      );
      // The spend line keeps X's price as it is, not rounded to a cent.
      await page.locator('#spend caption', { hasText: '$0.005 per post read' }).waitFor();
      await screenshot(page, 'overview-sentences');
    });

    await t.test('the Events page filters by type, platform and account', async () => {
      await page.goto(`${base}/ui/events`);
      await page.getByLabel('Type').selectOption('account.status_changed');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.locator('#events tr', { hasText: 'was suspended' }).waitFor();
      const types = await page
        .locator('#events tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-type')));
      assert.deepEqual([...new Set(types)], ['account.status_changed']);
      await page.goto(`${base}/ui/events?username=ada&platform=x`);
      const rows = await page.locator('#events tbody tr').allTextContents();
      assert.ok(rows.length > 0 && rows.every((r) => r.includes('@ada')), rows.join(' | '));
      await page.goto(`${base}/ui/events?type=nope`);
      assert.match((await page.textContent('body')) ?? '', /type/i);
    });

    await t.test(
      'a chart spans the chosen window, however few its points, and says when they are too few',
      async () => {
        const now = Math.floor(api.clock.now() / 1000);
        for (const [range, days] of [
          ['7d', 7],
          ['90d', 90],
        ] as const) {
          await page.goto(`${base}/ui/accounts/x/ada?range=${range}`);
          const chart = page.locator('#followers-chart');
          await page.locator('#followers-chart[data-x-max]').waitFor({ state: 'attached' });
          const min = Number(await chart.getAttribute('data-x-min'));
          const max = Number(await chart.getAttribute('data-x-max'));
          assert.ok(Math.abs(max - now) <= 60, `${range}: x ends ${max - now}s from now`);
          assert.ok(Math.abs(max - min - days * DAY_S) <= 60, `${range}: x spans ${(max - min) / DAY_S} days`);
        }
        // "all" runs from the first sample, a week and an hour ago: not years around one point.
        await page.goto(`${base}/ui/accounts/x/ada?range=all`);
        await page.locator('#followers-chart[data-x-max]').waitFor({ state: 'attached' });
        const chart = page.locator('#followers-chart');
        const span = Number(await chart.getAttribute('data-x-max')) - Number(await chart.getAttribute('data-x-min'));
        assert.ok(Math.abs(span - WEEK_S) <= 60, `all: ${span / DAY_S} days`);
        // Ada was seen twice; an account seen once says so in words.
        assert.equal(await page.locator('.few-points').count(), 0);
        await page.goto(`${base}/ui/accounts/x/newbie?range=30d`);
        await page.getByText('Only one check in this window so far').waitFor();
      },
    );

    for (const width of [1280, 375]) {
      await t.test(`hour labels and the top lists at ${width} px`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${base}/ui/accounts/x/ada?range=30d`);
        await page.locator('#timeline li', { hasText: '@ada' }).first().waitFor();
        const labels = await page.locator('.bar-labels span').allTextContents();
        assert.deepEqual(
          labels.filter((l) => l !== ''),
          ['00', '03', '06', '09', '12', '15', '18', '21'],
        );
        const hashtags = page.locator('section:has(> h3:text-is("Top hashtags"))');
        const mentions = page.locator('section:has(> h3:text-is("Top mentions"))');
        await assertOneEntryALine(page, 'section:has(> h3:text-is("Top hashtags")) ol.ranked li');
        await assertOneEntryALine(page, 'section:has(> h3:text-is("Top mentions")) ol.ranked li');
        const a = await hashtags.boundingBox();
        const b = await mentions.boundingBox();
        assert.ok(a && b);
        const apart = a.x + a.width <= b.x + 0.5 || b.y >= a.y + a.height - 0.5;
        assert.ok(apart, `the lists overlap: ${JSON.stringify([a, b])}`);
        assert.ok(await fitsWidth(page), `the page scrolls sideways at ${width} px`);
        await page.locator('section:has(> h3:text-is("Activity by hour"))').scrollIntoViewIfNeeded();
        await screenshot(page, `account-lists-${width}`);
      });
      await t.test(`the Overview's movers and followers over time at ${width} px`, async () => {
        await page.goto(`${base}/ui/?range=7d`);
        const lost = await page.locator('#movers-7d-down li').allInnerTexts();
        assert.deepEqual(lost, []);
        await page.getByText('No account lost followers over the last 7 days yet.').waitFor();
        await page.locator('#totals-chart[data-x-max]').waitFor({ state: 'attached' });
        const chart = page.locator('#totals-chart');
        const span = Number(await chart.getAttribute('data-x-max')) - Number(await chart.getAttribute('data-x-min'));
        // 150 (ada) + 104 (maple) + 40 (suspended, still tracked) + 5 (newbie).
        assert.ok(Math.abs(span - 7 * DAY_S) <= 60, `totals over 7d: x spans ${span / DAY_S} days`);
        assert.match(
          (await chart.getAttribute('aria-label')) ?? '',
          /Total followers of all tracked accounts over the last 7 days, 299 now/,
        );
        const lists = await page.locator('.mover-list').evaluateAll((boxes) =>
          boxes.map((b) => {
            const r = b.getBoundingClientRect();
            return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          }),
        );
        for (let i = 1; i < lists.length; i += 1) {
          const [p, q] = [lists[i - 1]!, lists[i]!];
          assert.ok(q.left >= p.right - 0.5 || q.top >= p.bottom - 0.5, `mover lists ${i - 1} and ${i} overlap`);
        }
        assert.ok(await fitsWidth(page), `the Overview scrolls sideways at ${width} px`);
        await page.locator('#movers').scrollIntoViewIfNeeded();
        await screenshot(page, `overview-movers-${width}`);
      });
    }
  },
);
