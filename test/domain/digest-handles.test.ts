// Unit test: a digest writes account names as the event sentences and the dashboard do, "@" before
// X names and Bluesky handles, a Bluesky DID bare, in its text and its HTML alike.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDigest, type DigestAccountFigures } from '../../src/domain/digest-content.ts';
import { digestHtml } from '../../src/domain/digest-html.ts';
import { digestText } from '../../src/domain/digest-text.ts';

const DID = 'did:plc:abcdefghijklmnopqrstuvwx';
const figures = (id: number, platform: string, username: string, gained: number): DigestAccountFigures => ({
  id,
  platform,
  username,
  followers: { previousStart: 100, start: 110, end: 110 + gained },
  posts: { previousStart: 1, start: 2, end: 3 },
  engagement: 1,
  previousEngagement: 1,
});

test('digest text and HTML write @name on X and Bluesky, and a DID without "@"', () => {
  const content = buildDigest({
    name: 'Morning',
    period: '3 Dec 2026',
    late: false,
    accounts: [
      figures(1, 'x', 'sable_122', 30),
      figures(2, 'bluesky', 'alice.bsky.social', 20),
      figures(3, 'bluesky', DID, -5),
    ],
    events: [
      {
        type: 'account.renamed',
        createdAt: 0,
        data: { account: { platform: 'bluesky', username: 'alice.bsky.social' }, from: DID, to: 'alice.bsky.social' },
      },
    ],
    eventTotal: 1,
  });
  const text = digestText(content);
  assert.match(text, /^ {2}@sable_122 \(x\)/m);
  assert.match(text, /^ {2}@alice\.bsky\.social \(bluesky\)/m);
  assert.match(text, new RegExp(`^ {2}${DID} \\(bluesky\\)`, 'm'));
  assert.doesNotMatch(text, /@did:/);
  assert.match(text, new RegExp(`${DID} is now @alice\\.bsky\\.social`));
  const html = digestHtml(content, { baseUrl: 'https://perch.example' });
  assert.match(html, />@alice\.bsky\.social</);
  assert.match(html, />@sable_122</);
  assert.match(html, new RegExp(`>${DID}<`));
  assert.doesNotMatch(html, /@did:/);
});
