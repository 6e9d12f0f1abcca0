// The dashboard as a person uses it, in Chromium: signing in and out, the pages and their counts,
// charts holding the history, imports with rejected lines, keys shown once and revoked, an app
// key's read-only view, CSRF, 375 px, and not one request to another host.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { startFakeBluesky } from '../../src/simulators/bluesky-server.ts';
import { startFakeX } from '../../src/simulators/x-server.ts';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { X_TOKEN } from '../helpers/tracker.ts';
import { fitsWidth, openBrowser, screenshot, signIn, skipReason } from './harness.ts';

const admin = { 'x-api-key': ADMIN_KEY };
const HOUR = 3_600_000;

test('the dashboard in Chromium', { skip: skipReason() ?? false, timeout: 120_000 }, async (t) => {
  const x = await startFakeX();
  const bsky = await startFakeBluesky();
  t.after(async () => {
    await x.close();
    await bsky.close();
  });
  const jack = x.addUser({ username: 'jack', followers: 1_000, name: 'Jack' });
  x.addUser({ username: 'alice', followers: 500 });
  x.addUser({ username: 'albert', followers: 200 });
  x.addUsers(60, 'user');
  x.addPost(jack.id, {
    text: 'hello #perch https://example.com',
    hashtags: ['perch'],
    likes: 4,
    createdAt: '2026-11-23T11:00:00.000Z',
  });
  bsky.addUser({ handle: 'carol.bsky.social', followers: 300 });
  const api = await build(
    t,
    {},
    { X_BEARER_TOKEN: X_TOKEN, X_API_BASE_URL: x.url, BLUESKY_API_BASE_URL: bsky.url, WEBHOOK_ALLOW_PRIVATE: 'true' },
  );
  const names = [
    'username,tags',
    'jack,founders',
    'alice,founders',
    'albert',
    'carol.bsky.social',
    ...Array.from({ length: 60 }, (_, i) => `user${i}`),
  ];
  const imported = await api.app.inject({
    method: 'POST',
    url: '/api/admin/insert',
    headers: admin,
    payload: { file: `${names.join('\n')}\n` },
  });
  assert.equal(imported.statusCode, 200);
  // Three checks an hour apart: jack's history holds three points.
  await api.tracker?.tick();
  for (const followers of [1_010, 1_030]) {
    api.clock.advance(HOUR + 1);
    x.updateUser(jack.id, { followers });
    await api.tracker?.tick();
  }
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  const { page, requests, context } = await openBrowser(t);

  await t.test('a wrong key is refused with the API detail; the right one opens the Overview', async () => {
    await page.goto(`${base}/`);
    assert.equal(new URL(page.url()).pathname, '/ui/sign-in');
    await signIn(page, base, 'perch_not-a-real-key');
    await page.getByText('The API key is not valid.').waitFor();
    await screenshot(page, 'sign-in');
    await signIn(page, base, ADMIN_KEY);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    const cookies = await context.cookies();
    assert.equal(cookies.length, 1);
    assert.equal(cookies[0]?.httpOnly, true);
    assert.equal(cookies[0]?.sameSite, 'Strict');
    assert.ok(!cookies.some((c) => c.value.includes(ADMIN_KEY)));
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (const name of ['Overview', 'Accounts', 'Compare', 'Import', 'Keys', 'Webhooks', 'Events'])
      await nav.getByRole('link', { name, exact: true }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  });

  await t.test('the Overview counts accounts per status and platform', async () => {
    const row = page.locator('#accounts-by-status tr[data-status="active"]');
    assert.deepEqual(await row.locator('td').allInnerTexts(), ['63', '1', '64']);
    assert.deepEqual(await page.locator('#accounts-by-status tr[data-status="all"] td').allInnerTexts(), [
      '63',
      '1',
      '64',
    ]);
    // X's spend from the ledger, and every budget with what is left.
    assert.match(
      await page.locator('#spend caption').innerText(),
      /\$0\.01 per user read, \$0\.01 per post read|\$0\.01 per user read/,
    );
    assert.equal(await page.locator('#spend tbody tr').count(), 3);
    assert.ok((await page.locator('#budgets tbody tr').count()) >= 2);
    await screenshot(page, 'overview');
  });

  await t.test('Accounts: prefix search, filters, sorts and paging', async () => {
    await page.getByRole('link', { name: 'Accounts', exact: true }).click();
    const usernames = () => page.locator('#accounts tbody tr td:first-child').allInnerTexts();
    assert.equal((await usernames()).length, 50);
    await page.getByRole('link', { name: 'Next page' }).click();
    assert.equal((await usernames()).length, 14);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByLabel('Search').fill('al');
    await page.getByRole('button', { name: 'Apply' }).click();
    assert.deepEqual(await usernames(), ['albert', 'alice']);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag').fill('founders');
    await page.getByLabel('Sort').selectOption('-followers');
    await page.getByRole('button', { name: 'Apply' }).click();
    assert.deepEqual(await usernames(), ['jack', 'alice']);
    await page.goto(`${base}/ui/accounts?platform=bluesky`);
    assert.deepEqual(await usernames(), ['carol.bsky.social']);
    await page.goto(`${base}/ui/accounts?sort=-followers`);
    assert.deepEqual((await usernames()).slice(0, 3), ['jack', 'alice', 'carol.bsky.social']);
    await screenshot(page, 'accounts');
  });

  await t.test(
    "an account page: its heading, a Followers chart holding the history's points, the analysis",
    async () => {
      await page.getByRole('link', { name: 'jack', exact: true }).click();
      await page.getByRole('heading', { name: 'jack', level: 1 }).waitFor();
      const history = (
        await api.app.inject({ method: 'GET', url: '/api/accounts/x/jack/history', headers: admin })
      ).json<{ data: { followers: number }[] }>();
      assert.equal(history.data.length, 3);
      const chart = page.getByRole('img', { name: /^Followers/ });
      await chart.waitFor();
      await page.locator('#followers-chart canvas').first().waitFor({ state: 'attached' });
      assert.equal(await chart.getAttribute('data-points'), String(history.data.length));
      assert.match((await chart.getAttribute('aria-label')) ?? '', /3 points, from 1,000 to 1,030/);
      await page.getByText('The numbers as a table').click();
      assert.ok(await page.getByRole('cell', { name: '1,030' }).first().isVisible());
      await page.getByRole('img', { name: /Own posts per UTC hour/ }).waitFor();
      await page.locator('ol.ranked li', { hasText: '#perch' }).waitFor();
      await screenshot(page, 'account');
      await page.getByRole('button', { name: 'Pause' }).click();
      await page.getByText('Tracking is paused.').waitFor();
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByText('Tracking is resumed.').waitFor();
      const download = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download the history (CSV)' }).click(),
      ]).then(([d]) => d);
      assert.equal(download.suggestedFilename(), 'x-jack-history.csv');
    },
  );

  await t.test('Compare overlays accounts as % change', async () => {
    await page.getByRole('link', { name: 'Compare', exact: true }).click();
    await page.getByLabel('Accounts').fill('jack, alice, nobody');
    await page.getByLabel('% change').check();
    await page.getByRole('button', { name: 'Compare' }).click();
    await page.getByText('Not tracked: nobody.').waitFor();
    const chart = page.getByRole('img', { name: /^Followers of jack \(x\), alice \(x\) as % change/ });
    await chart.waitFor();
    await page.locator('#compare-chart canvas').first().waitFor({ state: 'attached' });
    assert.equal(await chart.getAttribute('data-points'), '6');
    await screenshot(page, 'compare');
  });

  await t.test('Import: upload progress and the per-row report with the rejected line', async () => {
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByLabel('CSV file').setInputFiles({
      name: 'more.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('username\nnewbie\nbad name!\njack\n'),
    });
    // Before the upload: the file's three rows priced as new X accounts.
    await page.locator('#cost-before', { hasText: '3 row(s)' }).waitFor();
    assert.match(await page.locator('#cost-before').innerText(), /about \$0\.03 a day \(\$0\.90 a month\)/);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'Import report' }).waitFor();
    const rejected = page.locator('#rejected tbody tr');
    assert.deepEqual(await rejected.locator('td').allInnerTexts(), [
      '3',
      'bad name!',
      'X usernames are 1-15 letters, digits or _',
    ]);
    assert.equal(await page.locator('#upload-progress').getAttribute('value'), '100');
    assert.match(await page.getByRole('status').first().innerText(), /more\.csv: 100 %/);
    assert.equal(await page.locator('#past-imports tbody tr').count(), 2);
    // After: what the one account it added costs.
    assert.match(await page.locator('#cost-after').innerText(), /1 x account\(s\), \$0\.01 a day \(\$0\.30 a month\)/);
    await screenshot(page, 'import');
  });

  let appKey = '';
  await t.test('Keys: a created key is shown once; Revoke ends it', async () => {
    await page.getByRole('link', { name: 'Keys', exact: true }).click();
    await page.getByLabel('Username').fill('reader');
    await page.getByLabel('Role').selectOption('app');
    await page.getByRole('button', { name: 'Create key' }).click();
    appKey = await page.getByLabel('New API key').inputValue();
    assert.match(appKey, /^perch_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await screenshot(page, 'keys');
    await page.goto(`${base}/ui/keys`);
    assert.equal(await page.getByLabel('New API key').count(), 0);
    assert.ok(!(await page.content()).includes(appKey));
    // A second key, revoked from the page.
    await page.getByLabel('Username').fill('temporary');
    await page.getByRole('button', { name: 'Create key' }).click();
    const doomed = await page.getByLabel('New API key').inputValue();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: /^Revoke perch_\w+… of temporary$/ }).click();
    await page.getByText('The key is revoked.').waitFor();
    assert.equal(
      (await api.app.inject({ method: 'GET', url: '/api/me', headers: { 'x-api-key': doomed } })).statusCode,
      401,
    );
  });

  await t.test('Webhooks: created with its secret shown once, a test sent; Events follows the log live', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    const url = 'http://127.0.0.1:9/perch-hook';
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    assert.ok((await page.getByLabel('Signing secret').inputValue()).length >= 20);
    await page.getByRole('button', { name: `Send test to ${url}` }).click();
    await page.getByText('A webhook.test event is queued for this endpoint.').waitFor();
    assert.equal(await page.locator('#webhooks tbody tr td:nth-child(2)').first().innerText(), 'all');
    await screenshot(page, 'webhooks');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events', exact: true }).click();
    await page.locator('#events tbody tr', { hasText: 'A test event for webhook' }).first().waitFor();
    const before = await page.locator('#events tbody tr').count();
    const hooks = (await api.app.inject({ method: 'GET', url: '/api/admin/webhooks', headers: admin })).json<{
      data: { id: string }[];
    }>();
    const sent = await api.app.inject({
      method: 'POST',
      url: `/api/admin/webhooks/${hooks.data[0]?.id}/test`,
      headers: admin,
    });
    assert.equal(sent.statusCode, 202);
    // No reload: the page asks for what came after its newest row.
    await page.locator('#events tbody tr').nth(before).waitFor({ timeout: 15_000 });
    assert.match(await page.locator('#events tbody tr').first().innerText(), /A test event for webhook wh_/);
  });

  await t.test('a replayed state-changing request without its CSRF token is refused and changes nothing', async () => {
    const before = (await api.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin })).json<{
      data: unknown[];
    }>().data.length;
    const replay = await page.request.post(`${base}/ui/keys`, {
      form: { username: 'forged', role: 'admin' },
      maxRedirects: 0,
    });
    assert.equal(replay.status(), 403);
    assert.match(await replay.text(), /CSRF token/);
    const wrong = await page.request.post(`${base}/ui/keys`, {
      form: { username: 'forged', role: 'admin', _csrf: 'x'.repeat(43) },
      maxRedirects: 0,
    });
    assert.equal(wrong.status(), 403);
    const after = (await api.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin })).json<{
      data: unknown[];
    }>().data.length;
    assert.equal(after, before);
  });

  await t.test('an app key sees read-only pages, and its revocation ends its session', async (st) => {
    const reader = await openBrowser(st);
    await signIn(reader.page, base, appKey);
    await reader.page.getByRole('heading', { name: 'Overview' }).waitFor();
    await reader.page.goto(`${base}/ui/accounts/x/jack`);
    await reader.page.getByRole('heading', { name: 'jack', level: 1 }).waitFor();
    assert.equal(await reader.page.getByRole('button', { name: 'Refresh now' }).count(), 0);
    await reader.page.goto(`${base}/ui/keys`);
    await reader.page.getByText('This needs an admin key').waitFor();
    const forged = await reader.page.request.post(`${base}/ui/accounts/x/jack/pause`, { form: {}, maxRedirects: 0 });
    assert.equal(forged.status(), 403);
    const id = (await api.app.inject({ method: 'GET', url: '/api/admin/api-keys', headers: admin }))
      .json<{ data: { id: string; username: string }[] }>()
      .data.find((k) => k.username === 'reader')?.id;
    assert.equal(
      (await api.app.inject({ method: 'DELETE', url: `/api/admin/api-keys/${id}`, headers: admin })).statusCode,
      200,
    );
    await reader.page.goto(`${base}/ui/accounts`);
    assert.equal(new URL(reader.page.url()).pathname, '/ui/sign-in');
  });

  await t.test('at 375 px every page fits without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    for (const path of [
      '/ui/',
      '/ui/accounts',
      '/ui/accounts/x/jack',
      '/ui/compare?accounts=jack,alice',
      '/ui/import',
      '/ui/keys',
      '/ui/webhooks',
      '/ui/events',
    ]) {
      await page.goto(`${base}${path}`);
      assert.ok(
        await fitsWidth(page),
        `${path} is wider than 375 px: ${await page.evaluate("[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 376 && !e.closest('.table-wrap')).slice(0, 3).map((e) => e.tagName + '.' + e.className).join(' ')")}`,
      );
    }
    await page.goto(`${base}/ui/accounts/x/jack`);
    await screenshot(page, 'account-375');
    await page.setViewportSize({ width: 1024, height: 680 });
  });

  await t.test(
    'keyboard: the first Tab reaches the skip link with a visible focus ring; dark mode follows the system',
    async () => {
      await page.goto(`${base}/ui/accounts`);
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.textContent'), 'Skip to content');
      assert.notEqual(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.id'), 'q');
      const light = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      await page.emulateMedia({ colorScheme: 'dark' });
      const dark = await page.evaluate('getComputedStyle(document.body).backgroundColor');
      assert.notEqual(dark, light);
      await page.goto(`${base}/ui/accounts/x/jack`);
      await screenshot(page, 'account-dark');
      await page.emulateMedia({ colorScheme: 'light' });
    },
  );

  await t.test('Sign out ends the session', async () => {
    await page.goto(`${base}/ui/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto(`${base}/ui/accounts`);
    assert.equal(new URL(page.url()).pathname, '/ui/sign-in');
  });

  await t.test('no request went to any other host', () => {
    assert.ok(requests.length > 20);
    const foreign = requests.filter((url) => !url.startsWith(`${base}/`));
    assert.deepEqual(foreign, []);
  });
});
