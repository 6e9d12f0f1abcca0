// `perch alerts add|list|remove` as a user runs them: the real CLI in a child process on a real
// store; a bad rule exits non-zero naming the field and adds nothing. (Few runs: each starts Node.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listAlertRules } from '../../src/storage/alert-rules-repo.ts';
import { perch } from '../helpers/cli.ts';
import { freshStoreUrl, readStore } from '../helpers/store-url.ts';

describe('perch alerts', () => {
  it('adds, lists and removes a rule; refuses a bad one by field', async (t) => {
    const store = await freshStoreUrl();
    t.after(() => store.drop());
    const env = { DATABASE_URL: store.url };
    const bad = await perch(
      ['alerts', 'add', '--name', 'Odd', '--metric', 'followers', '--anomaly', '9', '--recipients', 'nope'],
      env,
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /condition\/anomaly\/sensitivity/);
    assert.match(bad.stderr, /recipients\/0/);

    const added = await perch(
      [
        'alerts',
        'add',
        '--name',
        'Big jumps',
        '--metric',
        'followers',
        '--change-percent',
        '10',
        '--tags',
        'news,vip',
        '--cooldown',
        '6h',
        '--json',
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const rule = JSON.parse(added.stdout) as { id: string; condition: unknown; scope: unknown; cooldown: string };
    assert.deepEqual(rule.condition, { changePercent: 10, windowHours: 24 });
    assert.deepEqual(rule.scope, { tags: ['news', 'vip'] });
    assert.equal(rule.cooldown, '6h');
    const listed = await perch(['alerts', 'list'], env);
    assert.match(listed.stdout, /Big jumps +followers changes 10 % in 24 h +tagged news or vip +6h/);
    assert.doesNotMatch(listed.stdout, /Odd/);
    const removed = await perch(['alerts', 'remove', rule.id], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, new RegExp(`Deleted alert rule ${rule.id}`));
    assert.deepEqual(await readStore(store.url, (opened) => listAlertRules(opened.db)), []);
  });
});
