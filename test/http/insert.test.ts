// POST /api/admin/insert end to end: the four input forms, the report, idempotency, limits,
// and that a refused import changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_KEY, build, countAccounts } from '../helpers/app.ts';

const admin = { 'x-api-key': ADMIN_KEY };

function multipartBody(boundary: string, field: string, content: string): string {
  return `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="accounts.csv"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`;
}

const CSV =
  'username,tags,followers\njack,founders;press,10\n@Alice\nhttps://x.com/bob\nhttps://bsky.app/profile/carol.bsky.social\nbad name!\nJACK\n';

describe('POST /api/admin/insert', () => {
  it('accepts the documented JSON form and reports every count', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: CSV },
    });
    assert.equal(response.statusCode, 200, response.body);
    const report = response.json();
    assert.match(report.importId, /^imp_/);
    assert.deepEqual(
      { ...report, importId: undefined },
      {
        success: true,
        importId: undefined,
        received: 6,
        accepted: 4,
        inserted: 4,
        reactivated: 0,
        alreadyTracked: 0,
        duplicates: 1,
        rejected: [
          {
            line: 6,
            value: 'bad name!',
            code: 'invalid_username',
            reason: 'X usernames are 1-15 letters, digits or _',
          },
        ],
        rejectedCount: 1,
        rejectedTruncated: false,
        warnings: ['ignored unknown column "followers"'],
        // What the added accounts cost: 3 on X, 1 on Bluesky (free), at TRACK_INTERVAL 1 h.
        estimate: {
          rateCard: { userUsd: 0.01, postUsd: 0.005 },
          platforms: [
            { platform: 'x', accounts: 3, perDayUsd: 0.03, perMonthUsd: 0.9, firstReadUsd: 1.5 },
            { platform: 'bluesky', accounts: 1, perDayUsd: 0, perMonthUsd: 0, firstReadUsd: 0 },
          ],
        },
      },
    );
    const jack = await test.app.inject({ method: 'GET', url: '/api/?username=jack', headers: admin });
    assert.equal(jack.json().status, 'pending');
    assert.deepEqual(jack.json().tags, ['founders', 'press']);
    const carol = await test.app.inject({
      method: 'GET',
      url: '/api/accounts/bluesky/carol.bsky.social',
      headers: admin,
    });
    assert.equal(carol.statusCode, 200);
  });

  it('accepts a data URL, multipart and text/csv with the same result', async (t) => {
    const test = await build(t);
    const forms = [
      { payload: { file: `data:text/csv;base64,${Buffer.from('a1\na2\n').toString('base64')}` } },
      {
        headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
        payload: multipartBody('XyZ', 'file', 'b1\nb2\n'),
      },
      { headers: { 'content-type': 'text/csv' }, payload: 'c1\r\nc2\r\n' },
    ];
    for (const form of forms) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        ...form,
        headers: { ...admin, ...form.headers },
      });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().inserted, 2);
    }
    assert.equal(await countAccounts(test), 6);
    const imports = await test.app.inject({ method: 'GET', url: '/api/admin/imports', headers: admin });
    assert.deepEqual(
      imports
        .json()
        .data.map((i: { source: string }) => i.source)
        .sort(),
      ['data-url', 'multipart', 'text/csv'],
    );
  });

  it('changes nothing when the same file is sent again, and reactivates untracked accounts', async (t) => {
    const test = await build(t);
    const first = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'jack\nalice\n' },
    });
    assert.equal(first.json().inserted, 2);
    const again = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'jack\nalice\n' },
    });
    assert.deepEqual([again.json().inserted, again.json().alreadyTracked, again.json().reactivated], [0, 2, 0]);
    const removed = await test.app.inject({ method: 'DELETE', url: '/api/admin/accounts/x/alice', headers: admin });
    assert.equal(removed.statusCode, 200);
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/api/?username=alice', headers: admin })).statusCode,
      404,
    );
    const back = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'jack\nalice\n' },
    });
    assert.deepEqual([back.json().inserted, back.json().alreadyTracked, back.json().reactivated], [0, 1, 1]);
    assert.equal(
      (await test.app.inject({ method: 'GET', url: '/api/?username=alice', headers: admin })).statusCode,
      200,
    );
  });

  it("adds the file's tags to accounts already tracked, once", async (t) => {
    const test = await build(t);
    await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'username,tags\njack,founders\nalice,\n' },
    });
    const file = 'username,tags\njack,press|founders\nalice,press\n';
    for (let i = 0; i < 2; i += 1) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        headers: admin,
        payload: { file },
      });
      assert.equal(response.json().alreadyTracked, 2);
    }
    const read = async (name: string) =>
      (await test.app.inject({ method: 'GET', url: `/api/?username=${name}`, headers: admin })).json().tags;
    assert.deepEqual(await read('jack'), ['founders', 'press']);
    assert.deepEqual(await read('alice'), ['press']);
  });

  it('answers 422 csv_no_usernames with the rejected rows when nothing is usable', async (t) => {
    const test = await build(t);
    const response = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'username\nbad name!\n"alice\nbob"\n' },
    });
    assert.equal(response.statusCode, 422);
    const problem = response.json();
    assert.equal(problem.code, 'csv_no_usernames');
    assert.deepEqual(
      problem.rejected.map((r: { line: number; code: string }) => [r.line, r.code]),
      [
        [2, 'invalid_username'],
        [3, 'invalid_username'],
      ],
    );
    for (const file of ['', 'username\n']) {
      const empty = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        headers: admin,
        payload: { file },
      });
      assert.equal(empty.statusCode, 422);
      assert.equal(empty.json().code, 'csv_no_usernames');
    }
    assert.equal(await countAccounts(test), 0);
  });

  it('refuses a missing or non-string file, unknown fields and a path-looking value is only CSV', async (t) => {
    const test = await build(t);
    for (const payload of [{}, { file: 42 }, { file: null }, { file: ['a'] }, { file: 'a', extra: 1 }]) {
      const response = await test.app.inject({ method: 'POST', url: '/api/admin/insert', headers: admin, payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.json().code, 'validation_failed');
    }
    const path = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: '/etc/passwd' },
    });
    assert.equal(path.statusCode, 422);
    assert.equal(path.json().rejected[0].value, '/etc/passwd');
    assert.equal(await countAccounts(test), 0);
  });

  it('enforces MAX_IMPORT_BYTES (413) and MAX_IMPORT_ROWS (422) without writing anything', async (t) => {
    const test = await build(t, { maxImportBytes: 1_000, maxImportRows: 10 });
    const big = Array.from({ length: 8 }, (_, i) => `user${i}${'x'.repeat(150)}`).join('\n');
    for (const form of [
      { payload: { file: big } },
      { headers: { 'content-type': 'text/csv' }, payload: big },
      { headers: { 'content-type': 'multipart/form-data; boundary=B' }, payload: multipartBody('B', 'file', big) },
    ]) {
      const response = await test.app.inject({
        method: 'POST',
        url: '/api/admin/insert',
        ...form,
        headers: { ...admin, ...form.headers },
      });
      assert.equal(response.statusCode, 413, response.body);
      assert.equal(response.json().code, 'import_too_large');
    }
    const many = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: Array.from({ length: 11 }, (_, i) => `u${i}`).join('\n') },
    });
    assert.equal(many.statusCode, 422);
    assert.equal(many.json().code, 'csv_too_many_rows');
    assert.equal(await countAccounts(test), 0);
  });

  it('refuses other content types with 415, and bad encodings with 400', async (t) => {
    const test = await build(t);
    const xml = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { ...admin, 'content-type': 'application/xml' },
      payload: '<a/>',
    });
    assert.equal(xml.statusCode, 415);
    assert.equal(xml.json().code, 'unsupported_media_type');
    const badJson = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"file": ',
    });
    assert.equal(badJson.statusCode, 400);
    assert.equal(badJson.json().code, 'invalid_json');
    const badBase64 = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: admin,
      payload: { file: 'data:text/csv;base64,@@@' },
    });
    assert.equal(badBase64.statusCode, 400);
    assert.equal(badBase64.json().code, 'invalid_encoding');
    const wrongPart = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { ...admin, 'content-type': 'multipart/form-data; boundary=B' },
      payload: multipartBody('B', 'upload', 'a\n'),
    });
    assert.equal(wrongPart.statusCode, 400);
    assert.equal(wrongPart.json().code, 'missing_file');
    assert.equal(await countAccounts(test), 0);
  });

  it('replays the first answer for a retried Idempotency-Key and refuses its reuse for another file', async (t) => {
    const test = await build(t);
    const headers = { ...admin, 'idempotency-key': 'import-1' };
    const first = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers,
      payload: { file: 'jack\n' },
    });
    const retry = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers,
      payload: { file: 'jack\n' },
    });
    assert.equal(retry.statusCode, 200);
    assert.deepEqual(retry.json(), first.json());
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const other = await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers,
      payload: { file: 'alice\n' },
    });
    assert.equal(other.statusCode, 422);
    assert.equal(other.json().code, 'idempotency_key_mismatch');
    const imports = await test.app.inject({ method: 'GET', url: '/api/admin/imports', headers: admin });
    assert.equal(imports.json().data.length, 1);
  });

  it('records each import in the audit log with its actor', async (t) => {
    const test = await build(t);
    const key = await test.createKey('admin');
    await test.app.inject({
      method: 'POST',
      url: '/api/admin/insert',
      headers: { 'x-api-key': key.apiKey },
      payload: { file: 'jack\n' },
    });
    const audit = await test.app.inject({ method: 'GET', url: '/api/admin/audit', headers: admin });
    const entry = audit.json().data.find((e: { action: string }) => e.action === 'accounts.import');
    assert.equal(entry.actor, key.id);
    assert.equal(entry.detail.inserted, 1);
  });
});
