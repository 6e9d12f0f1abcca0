// Unit tests for the events said as sentences: each type's words, its links, and data that is
// missing, mistyped or hostile never throws.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_TYPES } from '../../src/domain/events.ts';
import { eventSentence, SENTENCE_TYPES, sentenceText, type Sentence } from '../../src/domain/event-sentences.ts';
import { dollars, figure, handleText, plural, signedFigure } from '../../src/domain/figures-text.ts';

const account = (username: string, platform = 'x') => ({ id: 'acc_1', platform, username, platformUserId: '7' });
const say = (type: string, data: unknown) => sentenceText(eventSentence({ type, data }));
const links = (sentence: Sentence) => sentence.filter((p) => p.link).map((p) => [p.text, p.link]);

describe('eventSentence', () => {
  it('says a rename with the new name linked to the account', () => {
    const s = eventSentence({
      type: 'account.renamed',
      data: { account: account('maple_000123'), from: 'sable_122', to: 'maple_000123' },
    });
    assert.equal(sentenceText(s), '@sable_122 is now @maple_000123');
    assert.deepEqual(links(s), [['@maple_000123', { kind: 'account', platform: 'x', username: 'maple_000123' }]]);
  });

  it('writes Bluesky handles with "@" as Bluesky does, and a DID bare', () => {
    const handle = 'alice.bsky.social';
    const did = 'did:plc:abcdefghijklmnopqrstuvwx';
    const s = eventSentence({
      type: 'account.renamed',
      data: { account: account(handle, 'bluesky'), from: did, to: handle },
    });
    assert.equal(sentenceText(s), `${did} is now @alice.bsky.social`);
    assert.deepEqual(links(s), [['@alice.bsky.social', { kind: 'account', platform: 'bluesky', username: handle }]]);
    assert.equal(
      say('account.status_changed', { account: account(did, 'bluesky'), from: 'active', to: 'suspended' }),
      `${did} was suspended`,
    );
    assert.equal(handleText('sable_122'), '@sable_122');
    assert.equal(handleText('DID:web:example.com'), 'DID:web:example.com');
  });

  it('says status changes in words, with the reason', () => {
    const d = (from: string, to: string, reason: string | null = null) => ({
      account: account('sable_112'),
      from,
      to,
      reason,
    });
    assert.equal(say('account.status_changed', d('active', 'suspended')), '@sable_112 was suspended');
    assert.equal(
      say('account.status_changed', d('active', 'suspended', 'User has been suspended')),
      '@sable_112 was suspended (User has been suspended)',
    );
    assert.equal(say('account.status_changed', d('active', 'not_found')), '@sable_112 was not found');
    assert.equal(say('account.status_changed', d('active', 'protected')), '@sable_112 became protected');
    assert.equal(say('account.status_changed', d('suspended', 'active')), '@sable_112 is active again');
    assert.equal(say('account.status_changed', d('active', 'error')), '@sable_112 could not be checked');
    assert.equal(say('account.status_changed', d('active', 'frozen')), '@sable_112 is now frozen');
  });

  it('says milestones, spikes and follower changes with separators and signs', () => {
    const pixel = account('pixel_000014', 'bluesky');
    assert.equal(
      say('account.followers_milestone', { account: pixel, milestone: 100, followers: 103 }),
      '@pixel_000014 passed 100 followers',
    );
    assert.equal(
      say('account.followers_milestone', { account: pixel, milestone: 1_000_000, followers: 1_000_020 }),
      '@pixel_000014 passed 1,000,000 followers',
    );
    assert.equal(
      say('account.followers_spike', {
        account: pixel,
        change: 1_250,
        percent: 12.5,
        windowHours: 6,
        followers: 11_250,
      }),
      '@pixel_000014 gained 1,250 followers in 6 h (+12.5%)',
    );
    assert.equal(
      say('account.followers_spike', {
        account: pixel,
        change: -300,
        percent: 23.1,
        windowHours: 0.5,
        followers: 1_000,
      }),
      '@pixel_000014 lost 300 followers in 0.5 h (−23.1%)',
    );
    const ada = account('ada');
    const changed = (gainedCount: number, lostCount: number) =>
      say('account.followers_changed', { account: ada, gained: [], lost: [], gainedCount, lostCount, via: 'poll' });
    assert.equal(changed(12, 3), '@ada gained 12 followers and lost 3');
    assert.equal(changed(1, 0), '@ada gained 1 follower');
    assert.equal(changed(0, 1), '@ada lost 1 follower');
    assert.equal(changed(0, 0), '@ada had no follower changes');
  });

  it('links a post to its URL and cuts its text', () => {
    const s = eventSentence({
      type: 'account.posted',
      data: {
        account: account('ada'),
        post: {
          id: 'p1',
          url: 'https://x.com/ada/status/1',
          createdAt: '2026-01-01T00:00:00Z',
          text: `hello\n${'a'.repeat(300)}`,
          via: 'poll',
        },
      },
    });
    const text = sentenceText(s);
    assert.match(text, /^@ada posted: “hello a+…”$/);
    assert.ok(text.length < 170, text);
    assert.deepEqual(links(s)[1], ['posted', { kind: 'post', url: 'https://x.com/ada/status/1' }]);
    assert.equal(say('post.deleted', { account: account('ada'), postId: 'p1' }), '@ada deleted a post');
  });

  it('says an alert with its rule linked and its figures as they are', () => {
    const s = eventSentence({
      type: 'alert.triggered',
      data: {
        account: account('ada'),
        rule: { id: 'alr_1', name: 'Big drop' },
        metric: 'engagementRate',
        value: 0.0045,
        threshold: 0.005,
        windowHours: 24,
      },
    });
    assert.equal(
      sentenceText(s),
      'Alert “Big drop” fired for @ada: engagement rate 0.0045 (threshold 0.005, over 24 h)',
    );
    assert.deepEqual(
      links(s).map(([, link]) => link),
      [
        { kind: 'alert', id: 'alr_1' },
        { kind: 'account', platform: 'x', username: 'ada' },
      ],
    );
    assert.equal(
      say('alert.triggered', {
        account: account('ada'),
        rule: { id: 'alr_2', name: 'Spiky' },
        metric: 'followers',
        value: 900,
        baseline: 12.25,
      }),
      'Alert “Spiky” fired for @ada: followers 900 (baseline 12.25)',
    );
  });

  it('says imports and webhook tests, linked to their pages', () => {
    const s = eventSentence({
      type: 'import.completed',
      data: {
        importId: 'imp_9',
        received: 5,
        accepted: 4,
        inserted: 3,
        reactivated: 1,
        alreadyTracked: 0,
        duplicates: 0,
        rejectedCount: 1,
      },
    });
    assert.equal(sentenceText(s), 'An import added 3 accounts of 5 received (1 resumed, 1 rejected)');
    assert.deepEqual(links(s), [['import', { kind: 'import', id: 'imp_9' }]]);
    const t = eventSentence({
      type: 'webhook.test',
      data: { webhookId: 'wh_4f', message: 'This is a test event from perch.' },
    });
    assert.equal(sentenceText(t), 'A test event for webhook wh_4f');
    assert.deepEqual(links(t), [['webhook wh_4f', { kind: 'webhook', id: 'wh_4f' }]]);
    assert.equal(
      say('account.checked_first', { account: account('ada'), status: 'not_found' }),
      '@ada was checked for the first time: not found',
    );
  });

  it('has a sentence for every event type perch writes', () => {
    for (const type of EVENT_TYPES) assert.ok(SENTENCE_TYPES.includes(type), type);
  });

  it('never throws and never links what it cannot name, whatever the data', () => {
    const junk: unknown[] = [
      null,
      undefined,
      42,
      'text',
      [],
      { account: 'x' },
      { account: { username: 7 } },
      { rule: [] },
    ];
    for (const type of [...SENTENCE_TYPES, 'something.new'])
      for (const data of junk) {
        const s = eventSentence({ type, data });
        assert.ok(sentenceText(s).length > 0, `${type} ${JSON.stringify(data)}`);
        assert.ok(!sentenceText(s).includes('undefined') && !sentenceText(s).includes('NaN'), sentenceText(s));
        for (const part of s) if (part.link?.kind === 'account') assert.ok(part.link.username);
      }
    assert.equal(say('account.renamed', {}), 'an account is now an account');
    assert.equal(say('something.new', { account: account('ada') }), 'something.new: @ada');
    // Without a platform the name is said but not linked.
    assert.deepEqual(links(eventSentence({ type: 'post.deleted', data: { account: { username: 'ada' } } })), []);
  });
});

describe('figures', () => {
  it('keep the precision they have', () => {
    assert.equal(dollars(0.005), '$0.005');
    assert.equal(dollars(0.01), '$0.01');
    assert.equal(dollars(1234.5), '$1,234.50');
    assert.equal(dollars(0.1 + 0.2), '$0.30');
    assert.equal(dollars(-2), '-$2.00');
    assert.equal(figure(12.345), '12.345');
    assert.equal(figure(1_000_000), '1,000,000');
    assert.equal(figure(null), '?');
    assert.equal(plural(1, 'post'), '1 post');
    assert.equal(plural(2, 'post'), '2 posts');
    assert.equal(signedFigure(-3), '−3');
    assert.equal(signedFigure(12), '+12');
    assert.equal(signedFigure(0), '0');
  });
});
