// Property: any malformed body sent to any write route gets a 4xx problem document, never a 5xx,
// and leaves the store exactly as it was.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ADMIN_KEY, build, type TestApp } from '../helpers/app.ts';

const TABLES = ['accounts', 'api_keys', 'imports', 'audit_log', 'idempotency_keys'] as const;

async function snapshot(t: TestApp): Promise<string> {
  const parts: unknown[] = [];
  for (const table of TABLES) parts.push(await t.deps.store.db.selectFrom(table).selectAll().execute());
  return JSON.stringify(parts);
}

const isValidKeyRequest = (v: unknown) =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  ['app', 'admin'].includes((v as { role?: unknown }).role as string) &&
  typeof (v as { username?: unknown }).username === 'string';
const hasStringFile = (v: unknown) =>
  typeof v === 'object' && v !== null && typeof (v as { file?: unknown }).file === 'string';

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=zz',
  'image/png',
  '',
);

/** A body and its content type; JSON values that would be a valid request are left out. */
const malformed = fc.oneof(
  fc
    .jsonValue()
    .filter((v) => !isValidKeyRequest(v) && !hasStringFile(v))
    .map((v) => ({ type: 'application/json', body: JSON.stringify(v) })),
  fc
    .record({ type: contentTypes, body: fc.string({ maxLength: 200 }) })
    .filter(({ type, body }) => !type.startsWith('text/plain') || body.trim() === ''),
  fc
    .record({ type: contentTypes, body: fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)) })
    .filter(({ type }) => type !== 'text/plain'),
  fc
    .record({
      file: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string())),
      extra: fc.option(fc.string()),
    })
    .map((v) => ({ type: 'application/json', body: JSON.stringify(v) })),
);

describe('random bodies', () => {
  it('never break a write route nor change the store', async (t) => {
    const test = await build(t, { authFailuresPerMinute: 1_000_000, rateLimitPerMinute: 1_000_000 });
    await test.admin('POST', '/api/admin/insert', { file: 'jack\n' });
    // The API's write routes; the dashboard's forms are tested in test/http/dashboard.test.ts.
    const writes = test.app.routeTable.filter((r) => ['POST', 'PATCH'].includes(r.method) && r.url.startsWith('/api/'));
    assert.ok(writes.length >= 3);
    const before = await snapshot(test);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), malformed, async (route, { type, body }) => {
        const url = route.url.replace(':platform', 'x').replace(':username', 'jack');
        const headers: Record<string, string> = { 'x-api-key': ADMIN_KEY };
        if (type !== '') headers['content-type'] = type;
        const response = await test.app.inject({ method: route.method as 'POST', url, headers, payload: body });
        const problem = `${route.method} ${url} ${type} ${JSON.stringify(String(body).slice(0, 80))} → ${response.statusCode} ${response.body.slice(0, 200)}`;
        // PATCH with a valid-looking partial change is legitimately 200; everything else must be 4xx.
        if (route.method === 'PATCH' && response.statusCode === 200) return;
        // Refresh takes no body: an empty one or `{}` is a valid request.
        if (route.url.endsWith('/refresh') && response.statusCode === 202 && /^\s*(\{\s*\})?\s*$/.test(String(body)))
          return;
        assert.ok(response.statusCode >= 400 && response.statusCode < 500, problem);
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/, problem);
        assert.equal(typeof response.json().code, 'string', problem);
      }),
      { numRuns: 300 },
    );
    const after = await snapshot(test);
    // PATCH may have changed jack's tags or note; compare the rest exactly.
    const strip = (s: string) =>
      s.replace(
        /"tags":"[^"]*"|"note":(null|"[^"]*")|"status":"\w+"|"status_reason":(null|"[^"]*")|"next_check_at":(null|\d+)|"updated_at":\d+/g,
        '',
      );
    const auditFree = (s: string) =>
      JSON.stringify(
        (JSON.parse(s) as unknown[][]).map((rows, i) =>
          TABLES[i] === 'audit_log'
            ? (rows as { action: string }[]).filter(
                (r) => r.action !== 'account.update' && r.action !== 'account.refresh',
              )
            : rows,
        ),
      );
    assert.equal(strip(auditFree(after)), strip(auditFree(before)));
  });
});
