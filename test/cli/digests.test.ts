// `perch digests add|list|preview|send-now|remove` as a user runs them: the real CLI in a child
// process on a real store; a bad digest exits non-zero naming the field and adds nothing; send-now
// refuses without SMTP_URL and otherwise queues what the preview shows. (Few runs: each starts Node.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { perch } from '../helpers/cli.ts';
import { freshStoreUrl, readStore } from '../helpers/store-url.ts';

describe('perch digests', () => {
  it('adds, lists, previews, sends now and removes a digest; refuses a bad one by field', async (t) => {
    const store = await freshStoreUrl();
    t.after(() => store.drop());
    const env = { DATABASE_URL: store.url };
    const bad = await perch(
      ['digests', 'add', '--name', 'Odd', '--time-zone', 'Mars/Olympus', '--recipients', 'nope', '--at', '25:00'],
      env,
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /timeZone/);
    assert.match(bad.stderr, /recipients\/0/);
    assert.match(bad.stderr, /body\/at/);

    const added = await perch(
      [
        'digests',
        'add',
        '--name',
        'Morning',
        '--time-zone',
        'Europe/Paris',
        '--recipients',
        'desk@example.com,ed@example.com',
        '--at',
        '07:30',
        '--tags',
        'news',
        '--json',
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const digest = JSON.parse(added.stdout) as { id: string; at: string; schedule: string; scope: unknown };
    assert.equal(digest.at, '07:30');
    assert.equal(digest.schedule, 'daily');
    assert.deepEqual(digest.scope, { tags: ['news'] });

    const listed = await perch(['digests', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /Morning +daily 07:30 +Europe\/Paris +tagged news +desk@example.com,ed@example.com/);
    assert.doesNotMatch(listed.stdout, /Odd/);

    const preview = await perch(['digests', 'preview', digest.id], env);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /^Subject: Morning: /);
    assert.match(preview.stdout, /Morning/);
    assert.doesNotMatch(preview.stdout, /<html/i);

    const refused = await perch(['digests', 'send-now', digest.id], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /SMTP_URL/);

    const mailEnv = { ...env, SMTP_URL: 'smtp://127.0.0.1:2525' };
    const sent = await perch(['digests', 'send-now', digest.id, '--json'], mailEnv);
    assert.equal(sent.code, 0, sent.stderr);
    const result = JSON.parse(sent.stdout) as { mailId: number; subject: string };
    const removed = await perch(['digests', 'remove', digest.id], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, new RegExp(`Deleted digest ${digest.id}`));

    await readStore(store.url, async (opened) => {
      const mail = await opened.db.selectFrom('mail_outbox').selectAll().execute();
      assert.deepEqual(
        mail.map((m) => [Number(m.id), m.kind, m.ref, m.status, JSON.parse(m.recipients), m.subject]),
        [[result.mailId, 'digest', digest.id, 'pending', ['desk@example.com', 'ed@example.com'], result.subject]],
      );
      // Not one of the periodic sends: the scheduled one would still have gone out.
      assert.deepEqual(await opened.db.selectFrom('digest_sends').selectAll().execute(), []);
      assert.deepEqual(await opened.db.selectFrom('digests').selectAll().execute(), []);
    });
  });
});
