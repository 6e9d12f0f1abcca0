// The dashboard in a real browser: Debian's Chromium driven by playwright-core (no browser is
// downloaded) against the real service on SQLite, listening on a port, with the local X and
// Bluesky servers behind its tracker. Every request the browser makes is recorded, so a test can
// prove nothing left this machine's service.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. */
export function skipReason(): string | null {
  if (process.env.TEST_DATABASE_URL) return 'browser tests run on the SQLite pass only (TEST_DATABASE_URL is set)';
  if (!existsSync(CHROMIUM)) return `browser tests need Chromium at ${CHROMIUM} (Debian: apt-get install -y chromium)`;
  return null;
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every URL the browser asked for. */
  requests: string[];
}

/** A fresh browser profile (its own cookies), closed and deleted after the test. */
export async function openBrowser(
  t: TestContext | { after(fn: () => Promise<void>): void },
  viewport = { width: 1024, height: 680 },
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'perch-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
    colorScheme: 'light',
  });
  context.setDefaultTimeout(20_000);
  const requests: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  t.after(async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page, requests };
}

/** Saves a screenshot when SCREENSHOT_DIR is set (the README's come from here). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
}

/** True when the page is no wider than its viewport (no sideways scrolling). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth');
}

export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/ui/sign-in`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
