// The Digests page in Chromium, at 375 px and by keyboard: a digest is created through the form
// (a bad time zone first: the field is named and nothing is created), edited, and its preview is
// the mail's HTML in a frame with its text beside it; the mail delivery log is one link away.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { ADMIN_KEY, build } from '../helpers/app.ts';
import { fitsWidth, openBrowser, screenshot, signIn, skipReason } from './harness.ts';

test(
  'digests: create, edit and preview at 375 px and by keyboard',
  { skip: skipReason() ?? false, timeout: 90_000 },
  async (t) => {
    const api = await build(t, { tracker: false });
    const imported = await api.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': ADMIN_KEY },
      payload: { file: 'username,tags\nada,press\nbob,press\n' },
    });
    assert.equal(imported.statusCode, 200);
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
    const { page, requests } = await openBrowser(t, { width: 375, height: 740 });
    await signIn(page, base, ADMIN_KEY);
    await page.getByRole('link', { name: 'Digests' }).click();
    await page.waitForURL(`${base}/ui/digests`);
    assert.ok(await page.locator('#mail-off').isVisible(), 'without SMTP_URL the page says digests are previews');

    // By keyboard: each field is reached with Tab from the one before and filled by typing.
    await page.getByLabel('Name').focus();
    await page.keyboard.type('Press morning');
    // (Chromium's time field takes Tab between its hours and minutes: the zone is focused directly.)
    await page.getByLabel('Time zone').focus();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Europe/Atlantis');
    await page.keyboard.press('Tab');
    await page.keyboard.type('desk@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('press');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#digest-problems');
    assert.match(await page.locator('#digest-problems').innerText(), /Time zone: must be an IANA time zone/);
    assert.ok(await page.locator('#digests-none').isVisible(), 'nothing was created');
    assert.equal(await page.getByLabel('Name').inputValue(), 'Press morning', 'what was typed stays');

    await page.getByLabel('Time zone').fill('Europe/Paris');
    await page.getByRole('button', { name: 'Create digest' }).press('Enter');
    await page.waitForURL(/\/ui\/digests\/dgst_/);
    assert.ok(await page.getByText('The digest is created.').isVisible());
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Press morning');
    const frame = page.frameLocator('iframe[title="Digest preview"]');
    await frame.locator('h1').waitFor();
    assert.equal(await frame.locator('h1').innerText(), 'Press morning');
    assert.match(await frame.locator('body').innerText(), /@ada/);
    assert.match((await page.locator('#preview-text').textContent()) ?? '', /2 accounts/);
    assert.ok(await fitsWidth(page), 'the digest page fits 375 px');
    await screenshot(page, 'digest-375');

    await page.getByLabel('Name').fill('Press evening');
    await page.getByLabel('Time', { exact: true }).fill('18:30');
    await page.getByRole('button', { name: 'Save digest' }).click();
    await page.waitForURL(/done=saved/);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Press evening');
    assert.match(await page.locator('main').innerText(), /Daily at 18:30 \(Europe\/Paris\)/);

    await page.getByRole('link', { name: 'Digests', exact: true }).first().click();
    assert.match(await page.locator('#digests').innerText(), /Press evening/);
    assert.ok(await fitsWidth(page), 'the list fits 375 px');
    await page.getByRole('link', { name: 'Mail delivery log' }).click();
    assert.ok(await page.locator('#mail-none').isVisible());
    assert.ok(
      requests.every((url) => url.startsWith(base)),
      'nothing is loaded from another host',
    );
  },
);
