// Tests for analyzeAccount and the follower series: fixed data with hand-computed numbers, and a
// property test that no input makes the analysis throw or produce a non-finite number.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  analyzeAccount,
  followerSeriesAppend,
  type AnalysisInput,
  type AnalysisPost,
} from '../../src/domain/analysis.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0); // 2026-06-15T12:00:00Z

function post(id: string, ageMs: number, fields: Partial<AnalysisPost> = {}): AnalysisPost {
  return {
    id,
    createdAt: NOW - ageMs,
    text: `post ${id}`,
    url: `https://example.social/${id}`,
    isRepost: false,
    likes: 0,
    reposts: 0,
    replies: 0,
    quotes: 0,
    hashtags: [],
    mentions: [],
    domains: [],
    lang: null,
    sentiment: null,
    ...fields,
  };
}

function input(fields: Partial<AnalysisInput> = {}): AnalysisInput {
  return { now: NOW, intervalMs: HOUR, observedAt: NOW, followers: 1100, followerSeries: [], posts: [], ...fields };
}

// Own posts p1–p5 inside 30 days, p6 older, r1 a repost of someone else (counted nowhere).
const POSTS: AnalysisPost[] = [
  post('p1', HOUR, {
    likes: 10,
    reposts: 2,
    replies: 1,
    hashtags: ['TypeScript', 'node'],
    mentions: ['Alice'],
    domains: ['example.com'],
    lang: 'en',
    sentiment: 0.5,
  }),
  post('p2', 2 * DAY, {
    likes: 20,
    replies: 4,
    quotes: 1,
    hashtags: ['typescript'],
    mentions: ['@bob'],
    domains: ['example.com', 'github.com'],
    lang: 'en',
    sentiment: -0.4,
  }),
  post('p3', 6 * DAY + 3 * HOUR, { hashtags: ['#Node'], lang: 'fr', sentiment: 0.02 }),
  post('p4', 10 * DAY, {
    likes: 5,
    reposts: 5,
    replies: 5,
    quotes: 5,
    hashtags: ['rust'],
    mentions: ['alice'],
    domains: ['github.com'],
  }),
  post('p5', 29 * DAY + 12 * HOUR, {
    likes: 100,
    mentions: ['carol'],
    domains: ['news.example'],
    lang: 'en',
    sentiment: 0.9,
  }),
  post('p6', 31 * DAY, { likes: 1000, hashtags: ['old'], lang: 'de', sentiment: -1 }),
  post('r1', HOUR / 2, {
    isRepost: true,
    likes: 9999,
    replies: 50,
    hashtags: ['spam'],
    mentions: ['spammer'],
    lang: 'es',
    sentiment: 1,
  }),
];

const SERIES: [number, number][] = [
  [NOW - 40 * DAY, 900],
  [NOW - 30 * DAY - HOUR, 1000],
  [NOW - 8 * DAY, 1040],
  [NOW - 7 * DAY, 1050],
  [NOW - 2 * DAY, 1080],
  [NOW - DAY + HOUR, 1090],
];

describe('analyzeAccount: a fixed account', () => {
  const result = analyzeAccount(input({ followerSeries: SERIES, posts: POSTS, observedAt: NOW - 30 * 60_000 }));

  it('computes follower changes from the latest point at or before each cut-off', () => {
    // 1d: the point 23 h ago is too recent, so 2 days ago (1080); 7d: exactly 7 days ago (1050); 30d: 30 days 1 h ago (1000).
    assert.deepEqual(result.followers, { change1d: 20, change7d: 50, change30d: 100, growthRate7d: 4.76 }); // 50 / 1050 = 4.7619 %
  });

  it('counts own posts for activity, ignoring reposts of others', () => {
    const hours = new Array<number>(24).fill(0);
    hours[0] = 1; // p5 at 00:00
    hours[9] = 1; // p3
    hours[11] = 1; // p1
    hours[12] = 2; // p2, p4
    assert.deepEqual(result.activity, {
      postsPerDay7d: 0.43,
      lastPostAt: '2026-06-15T11:00:00.000Z',
      activeHoursUtc: hours,
    }); // 3 / 7
  });

  it('averages engagement over own posts of the last 30 days', () => {
    // likes 135, reposts 7, replies 10 over 5 posts; interactions 13 + 25 + 0 + 20 + 100 = 158 → 31.6 / 1100 × 100.
    assert.deepEqual(result.engagement, {
      avgLikes: 27,
      avgReposts: 1.4,
      avgReplies: 2,
      engagementRate: 2.87,
      postsConsidered: 5,
      likesFirst24h: null,
    });
  });

  it('counts entities once per post, lower-case, ties alphabetically', () => {
    assert.deepEqual(result.content.topHashtags, [
      { tag: 'node', count: 2 },
      { tag: 'typescript', count: 2 },
      { tag: 'rust', count: 1 },
    ]);
    assert.deepEqual(result.content.topMentions, [
      { username: 'alice', count: 2 },
      { username: 'bob', count: 1 },
      { username: 'carol', count: 1 },
    ]);
    assert.deepEqual(result.content.topDomains, [
      { domain: 'example.com', count: 2 },
      { domain: 'github.com', count: 2 },
      { domain: 'news.example', count: 1 },
    ]);
  });

  it('gives language shares of the posts that have a language', () => {
    assert.deepEqual(result.content.languages, [
      { lang: 'en', share: 0.75 },
      { lang: 'fr', share: 0.25 },
    ]);
  });

  it('summarises sentiment of the scored posts', () => {
    // 0.5 − 0.4 + 0.02 + 0.9 = 1.02 over 4; 0.02 is neither positive nor negative.
    assert.deepEqual(result.content.sentiment, {
      mean: 0.255,
      positiveShare: 0.5,
      negativeShare: 0.25,
      postsScored: 4,
    });
  });

  it('ranks top posts by 5·replies + 3·reposts + 2·likes', () => {
    assert.deepEqual(
      result.topPosts.map((p) => [p.id, p.score]),
      [
        ['p5', 200],
        ['p2', 60],
        ['p4', 50],
        ['p1', 31],
        ['p3', 0],
      ],
    );
    assert.deepEqual(result.topPosts[1], {
      id: 'p2',
      createdAt: '2026-06-13T12:00:00.000Z',
      url: 'https://example.social/p2',
      text: 'post p2',
      likes: 20,
      reposts: 0,
      replies: 4,
      quotes: 1,
      score: 60,
    });
  });

  it('stamps the time and keeps a stable key order', () => {
    assert.equal(result.computedAt, '2026-06-15T12:00:00.000Z');
    assert.equal(result.stale, false);
    assert.deepEqual(Object.keys(result), [
      'followers',
      'activity',
      'engagement',
      'content',
      'topPosts',
      'computedAt',
      'stale',
    ]);
    assert.deepEqual(Object.keys(result.content), [
      'topHashtags',
      'topMentions',
      'topDomains',
      'languages',
      'sentiment',
    ]);
    assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
  });
});

describe('analyzeAccount: edge cases', () => {
  it('leaves changes null without enough history and never invents a value', () => {
    const result = analyzeAccount(input({ followerSeries: [[NOW - 3 * DAY, 1000]] }));
    assert.deepEqual(result.followers, { change1d: 100, change7d: null, change30d: null, growthRate7d: null });
    assert.deepEqual(analyzeAccount(input()).followers, {
      change1d: null,
      change7d: null,
      change30d: null,
      growthRate7d: null,
    });
  });

  it('has no growth rate when the account had no followers a week ago', () => {
    const result = analyzeAccount(input({ followerSeries: [[NOW - 7 * DAY, 0]] }));
    assert.deepEqual(result.followers, { change1d: 1100, change7d: 1100, change30d: null, growthRate7d: null });
  });

  it('gives a negative growth rate when followers fall', () => {
    const result = analyzeAccount(input({ followers: 900, followerSeries: [[NOW - 10 * DAY, 1200]] }));
    assert.deepEqual(result.followers, { change1d: -300, change7d: -300, change30d: null, growthRate7d: -25 });
  });

  it('has no engagement rate with 0 followers, but still the averages', () => {
    const result = analyzeAccount(
      input({ followers: 0, posts: [post('a', HOUR, { likes: 3, reposts: 1 }), post('b', 2 * HOUR, { likes: 4 })] }),
    );
    assert.deepEqual(result.engagement, {
      avgLikes: 3.5,
      avgReposts: 0.5,
      avgReplies: 0,
      engagementRate: null,
      postsConsidered: 2,
      likesFirst24h: null,
    });
  });

  it('gives nulls and zeros for an account without posts, or with reposts only', () => {
    for (const posts of [[], [post('r', HOUR, { isRepost: true, likes: 5, lang: 'en', sentiment: 0.5 })]]) {
      const result = analyzeAccount(input({ posts }));
      assert.deepEqual(result.activity, {
        postsPerDay7d: 0,
        lastPostAt: null,
        activeHoursUtc: new Array<number>(24).fill(0),
      });
      assert.deepEqual(result.engagement, {
        avgLikes: null,
        avgReposts: null,
        avgReplies: null,
        engagementRate: null,
        postsConsidered: 0,
        likesFirst24h: null,
      });
      assert.deepEqual(result.content, {
        topHashtags: [],
        topMentions: [],
        topDomains: [],
        languages: [],
        sentiment: { mean: null, positiveShare: null, negativeShare: null, postsScored: 0 },
      });
      assert.deepEqual(result.topPosts, []);
    }
  });

  it('keeps lastPostAt for old posts but counts them in no window', () => {
    const result = analyzeAccount(input({ posts: [post('old', 45 * DAY, { likes: 7 })] }));
    assert.equal(result.activity.lastPostAt, '2026-05-01T12:00:00.000Z');
    assert.equal(result.engagement.postsConsidered, 0);
    assert.deepEqual(result.topPosts, []);
  });

  it('counts a post exactly 7 days old, and ignores posts dated well in the future', () => {
    const posts = [post('edge', 7 * DAY), post('skew', -5 * 60_000), post('future', -2 * DAY, { likes: 99 })];
    const result = analyzeAccount(input({ posts }));
    assert.equal(result.activity.postsPerDay7d, 0.29); // 2 / 7
    assert.equal(result.activity.lastPostAt, '2026-06-15T12:05:00.000Z');
    assert.deepEqual(
      result.topPosts.map((p) => p.id),
      ['skew', 'edge'],
    );
  });

  it('keeps the 10 most used entities, ties in alphabetical order', () => {
    const tags = ['k', 'j', 'i', 'h', 'g', 'f', 'e', 'd', 'c', 'b', 'a', 'l'];
    const result = analyzeAccount(
      input({
        posts: [
          post('a', HOUR, { hashtags: tags, domains: ['B.example', 'b.example', 'a.example'] }),
          post('b', 2 * HOUR, { hashtags: ['L'] }),
        ],
      }),
    );
    assert.deepEqual(result.content.topHashtags, [
      { tag: 'l', count: 2 },
      ...['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((tag) => ({ tag, count: 1 })),
    ]);
    assert.deepEqual(result.content.topDomains, [
      { domain: 'a.example', count: 1 },
      { domain: 'b.example', count: 1 },
    ]);
  });

  it('breaks top-post ties by the newer post, keeps 5 and cuts long text to 280 characters', () => {
    const posts = [
      post('older', 3 * DAY, { likes: 5 }),
      post('newer', 2 * DAY, { likes: 5 }),
      post('best', 5 * DAY, { replies: 9, text: 'x'.repeat(300) }),
      post('c', 4 * DAY, { likes: 1 }),
      post('d', 6 * DAY, { likes: 1 }),
      post('e', 7 * DAY),
    ];
    const result = analyzeAccount(input({ posts }));
    assert.deepEqual(
      result.topPosts.map((p) => p.id),
      ['best', 'newer', 'older', 'c', 'd'],
    );
    assert.equal(result.topPosts[0]?.text, `${'x'.repeat(279)}…`);
  });

  it('rounds language shares to two decimals', () => {
    const posts = [
      post('a', HOUR, { lang: 'en' }),
      post('b', HOUR, { lang: 'EN' }),
      post('c', HOUR, { lang: 'ja' }),
      post('d', HOUR, { lang: 'de' }),
      post('e', HOUR, { lang: 'de' }),
      post('f', HOUR, { lang: 'pt' }),
    ];
    assert.deepEqual(analyzeAccount(input({ posts })).content.languages, [
      { lang: 'de', share: 0.33 },
      { lang: 'en', share: 0.33 },
      { lang: 'ja', share: 0.17 },
      { lang: 'pt', share: 0.17 },
    ]);
  });

  it('flags data older than twice the interval as stale', () => {
    assert.equal(analyzeAccount(input({ observedAt: NOW - 2 * HOUR })).stale, false);
    assert.equal(analyzeAccount(input({ observedAt: NOW - 2 * HOUR - 1 })).stale, true);
    assert.equal(analyzeAccount(input({ observedAt: NOW - 3 * DAY, intervalMs: 2 * DAY })).stale, false);
  });
});

describe('analyzeAccount: likes in the first 24 hours', () => {
  it('is the mean of the 24 h samples of own posts of the last 30 days, ignoring posts without one', () => {
    const posts = [
      post('a', 2 * DAY, { likes: 90, likesAt24h: 10 }),
      post('b', 3 * DAY, { likes: 70, likesAt24h: 25 }),
      post('c', 5 * HOUR, { likes: 4, likesAt24h: null }), // too young for a sample
      post('d', 4 * DAY, { likes: 50 }), // first read too late for one
      post('e', 31 * DAY, { likesAt24h: 1000 }), // outside the 30 days
      post('r', DAY + HOUR, { isRepost: true, likesAt24h: 5000 }), // someone else's post
    ];
    const result = analyzeAccount(input({ posts }));
    assert.equal(result.engagement.likesFirst24h, 17.5);
    assert.equal(result.engagement.postsConsidered, 4);
    assert.equal(result.engagement.avgLikes, 53.5, 'the averages use the current numbers, not the samples');
  });

  it('is null when no post has a 24 h sample', () => {
    assert.equal(analyzeAccount(input({ posts: [post('a', DAY / 2, { likes: 3 })] })).engagement.likesFirst24h, null);
  });
});

describe('followerSeriesAppend', () => {
  const day = (n: number, hour = 12) => Date.UTC(2026, 0, 1) + n * DAY + hour * HOUR;

  it('adds a point for a new day, oldest first, without touching the input', () => {
    const series: [number, number][] = [[day(0), 10]];
    assert.deepEqual(followerSeriesAppend(series, day(1), 12), [
      [day(0), 10],
      [day(1), 12],
    ]);
    assert.deepEqual(series, [[day(0), 10]]);
    assert.deepEqual(followerSeriesAppend([], day(0), 5), [[day(0), 5]]);
  });

  it("replaces an earlier point of the same UTC day with the day's latest value", () => {
    assert.deepEqual(followerSeriesAppend([[day(0, 1), 10]], day(0, 23), 12), [[day(0, 23), 12]]);
    assert.deepEqual(followerSeriesAppend([[day(0, 23), 12]], day(0, 1), 10), [[day(0, 23), 12]]);
    assert.deepEqual(followerSeriesAppend([[day(0, 23), 12]], day(1, 0), 13), [
      [day(0, 23), 12],
      [day(1, 0), 13],
    ]);
  });

  it('keeps the newest day and the keepDays days before it', () => {
    let series: [number, number][] = [];
    for (let n = 0; n <= 41; n += 1) series = followerSeriesAppend(series, day(n), n);
    assert.equal(series.length, 32);
    assert.deepEqual(series[0], [day(10), 10]);
    assert.deepEqual(series.at(-1), [day(41), 41]);
    assert.deepEqual(followerSeriesAppend(series, day(42), 42, 2), [
      [day(40), 40],
      [day(41), 41],
      [day(42), 42],
    ]);
  });

  it('sorts out-of-order points and drops non-finite ones', () => {
    assert.deepEqual(
      followerSeriesAppend(
        [
          [day(2), 2],
          [Number.NaN, 5],
          [day(0), 0],
        ],
        day(1),
        1,
      ),
      [
        [day(0), 0],
        [day(1), 1],
        [day(2), 2],
      ],
    );
    assert.deepEqual(followerSeriesAppend([[day(0), 0]], day(1), Number.NaN), [[day(0), 0]]);
  });

  it('still gives change30d after 40 days of hourly checks, whatever the hour', () => {
    const start = day(0, 0);
    for (const hour of [0, 1, 12, 23]) {
      const now = day(40, hour);
      let series: [number, number][] = [];
      for (let t = start; t <= now; t += HOUR) series = followerSeriesAppend(series, t, (t - start) / HOUR);
      assert.equal(series.length, 32);
      const result = analyzeAccount(input({ now, observedAt: now, followers: 2000, followerSeries: series }));
      // The day's kept point is its 23:00 check: 30 days back is day 9's, or day 10's at 23:00 itself.
      const expected = hour === 23 ? 2000 - (10 * 24 + 23) : 2000 - (9 * 24 + 23);
      assert.equal(result.followers.change30d, expected, `at ${hour}:00`);
    }
  });
});

describe('analyzeAccount: any input', () => {
  const count = fc.oneof(fc.nat(), fc.double(), fc.constantFrom(Number.NaN, Infinity, -Infinity, -1, 1e300));
  const time = fc.oneof(fc.integer({ min: NOW - 60 * DAY, max: NOW + DAY }), fc.double(), fc.constant(Number.NaN));
  const words = fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 });
  const arbitraryPost = fc.record({
    id: fc.string({ maxLength: 6 }),
    createdAt: time,
    text: fc.string({ maxLength: 400 }),
    url: fc.option(fc.webUrl()),
    isRepost: fc.boolean(),
    likes: count,
    reposts: count,
    replies: count,
    quotes: count,
    hashtags: words,
    mentions: words,
    domains: words,
    lang: fc.option(fc.string({ maxLength: 5 })),
    sentiment: fc.option(fc.double()),
  });
  const arbitraryInput = fc.record({
    now: fc.oneof(fc.constant(NOW), fc.double(), fc.integer()),
    intervalMs: count,
    observedAt: time,
    followers: count,
    followerSeries: fc.array(fc.tuple(time, count), { maxLength: 40 }),
    posts: fc.array(arbitraryPost, { maxLength: 40 }),
  });

  function assertFinite(value: unknown, path: string): void {
    if (typeof value === 'number') assert.ok(Number.isFinite(value), `${path} is ${value}`);
    else if (Array.isArray(value)) value.forEach((item, i) => assertFinite(item, `${path}[${i}]`));
    else if (value !== null && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) assertFinite(item, `${path}.${key}`);
  }

  it('never throws, and every number it returns is finite', () => {
    fc.assert(
      fc.property(arbitraryInput, (data) => {
        const result = analyzeAccount(data);
        assertFinite(result, 'result');
        assert.equal(result.activity.activeHoursUtc.length, 24);
        assert.equal(
          result.activity.activeHoursUtc.reduce((a, b) => a + b, 0),
          result.engagement.postsConsidered,
        );
        assert.ok(result.topPosts.length <= 5);
        assert.ok(result.topPosts.every((p) => p.text.length <= 280));
        for (const share of [
          result.content.sentiment.positiveShare,
          result.content.sentiment.negativeShare,
          ...result.content.languages.map((l) => l.share),
        ]) {
          assert.ok(share === null || (share >= 0 && share <= 1));
        }
        assert.deepEqual(JSON.parse(JSON.stringify(result)), result);
      }),
      { numRuns: 500 },
    );
  });
});
