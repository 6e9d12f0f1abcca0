// Unit tests for username normalisation, platform inference and per-platform validation.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  inferPlatform,
  normalizeUsernameInput,
  parseAccountRef,
  validateUsername,
} from '../../src/domain/usernames.ts';

describe('normalizeUsernameInput', () => {
  const cases: Array<[string, string, 'x' | 'bluesky' | null]> = [
    ['  jack  ', 'jack', null],
    ['@jack', 'jack', null],
    ['@@jack', '@jack', null], // only one @ is dropped; the second fails validation
    ['\u200Bja\u200Cck\u200D\u2060\uFEFF', 'jack', null],
    ['\uFEFF@jack', 'jack', null],
    ['https://x.com/jack', 'jack', 'x'],
    ['http://x.com/jack/', 'jack', 'x'],
    ['x.com/jack', 'jack', 'x'],
    ['HTTPS://WWW.X.COM/Jack?s=20', 'Jack', 'x'],
    ['https://twitter.com/jack/status/20', 'jack', 'x'],
    ['twitter.com/jack#top', 'jack', 'x'],
    ['https://mobile.twitter.com/jack', 'jack', 'x'],
    ['https://www.twitter.com/@jack', 'jack', 'x'],
    ['https://twitter.com/#!/jack', 'jack', 'x'],
    ['  https://x.com/jack  ', 'jack', 'x'],
    ['https://bsky.app/profile/alice.bsky.social', 'alice.bsky.social', 'bluesky'],
    ['bsky.app/profile/alice.bsky.social/post/3k2a', 'alice.bsky.social', 'bluesky'],
    ['https://bsky.app/profile/did:plc:z72i7hdynmk6r22z27h6tvur', 'did:plc:z72i7hdynmk6r22z27h6tvur', 'bluesky'],
    ['https://bsky.app/profile/did%3Aplc%3Az72i7hdynmk6r22z27h6tvur', 'did:plc:z72i7hdynmk6r22z27h6tvur', 'bluesky'],
    ['https://bsky.app/profile/alice.bsky.social?ref=x', 'alice.bsky.social', 'bluesky'],
    ['alice.bsky.social', 'alice.bsky.social', null],
    ['https://example.com/jack', 'https://example.com/jack', null],
    ['https://x.com/', 'https://x.com/', null],
    ['', '', null],
  ];
  for (const [raw, value, platformHint] of cases) {
    it(`${JSON.stringify(raw)} → ${JSON.stringify(value)} (${platformHint})`, () => {
      assert.deepEqual(normalizeUsernameInput(raw), { value, platformHint });
    });
  }

  it('never throws, whatever it is given', () => {
    for (const raw of ['%', 'https://bsky.app/profile/%E0%A4%A', '\uD800', 'x.com/%', '\u0000\n\r']) {
      assert.doesNotThrow(() => normalizeUsernameInput(raw));
    }
  });
});

describe('inferPlatform', () => {
  it('prefers an explicit platform, then the URL hint, then the shape, then the default', () => {
    assert.equal(inferPlatform('alice.bsky.social', 'bluesky', 'x', 'bluesky'), 'x');
    assert.equal(inferPlatform('jack', 'bluesky', null, 'x'), 'bluesky');
    assert.equal(inferPlatform('alice.bsky.social', null, null, 'x'), 'bluesky');
    assert.equal(inferPlatform('did:plc:z72i7hdynmk6r22z27h6tvur', null, null, 'x'), 'bluesky');
    assert.equal(inferPlatform('DID:web:example.com', null, null, 'x'), 'bluesky');
    assert.equal(inferPlatform('jack', null, null, 'x'), 'x');
    assert.equal(inferPlatform('jack', null, null, 'bluesky'), 'bluesky');
  });
});

describe('validateUsername', () => {
  it('accepts X names of 1-15 letters, digits or _, keeping case and keying lower-case', () => {
    assert.deepEqual(validateUsername('x', 'Jack_Dorsey_1'), {
      ok: true,
      username: 'Jack_Dorsey_1',
      key: 'jack_dorsey_1',
    });
    assert.deepEqual(validateUsername('x', 'a'), { ok: true, username: 'a', key: 'a' });
    assert.equal(validateUsername('x', 'a'.repeat(15)).ok, true);
  });

  for (const bad of ['', 'a'.repeat(16), 'bad name!', 'jack-d', 'jack.d', 'jäck', '@jack']) {
    it(`rejects the X name ${JSON.stringify(bad)}`, () => {
      assert.deepEqual(validateUsername('x', bad), {
        ok: false,
        code: 'invalid_username',
        reason: 'X usernames are 1-15 letters, digits or _',
      });
    });
  }

  for (const good of [
    'alice.bsky.social',
    'Alice.Bsky.Social',
    'xn--ls8h.test',
    'a.co',
    'jay.bsky.team',
    'sub-domain.example-1.com',
    `${'a'.repeat(63)}.com`,
  ]) {
    it(`accepts the Bluesky handle ${JSON.stringify(good)} in lower case`, () => {
      const lower = good.toLowerCase();
      assert.deepEqual(validateUsername('bluesky', good), { ok: true, username: lower, key: lower });
    });
  }

  for (const bad of [
    'alice',
    'alice.',
    '.alice.com',
    'alice..com',
    '-alice.com',
    'alice-.com',
    'alice.1com',
    'al_ice.com',
    `${'a'.repeat(64)}.com`,
    `${'abcdefghi.'.repeat(25)}com1`,
    'alice bsky.social',
  ]) {
    it(`rejects the Bluesky handle ${JSON.stringify(bad)}`, () => {
      const result = validateUsername('bluesky', bad);
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.code, 'invalid_username');
    });
  }

  it('rejects handles longer than 253 characters', () => {
    const labels = ['a', 'b', 'c', 'd', 'e'].map((letter) => letter.repeat(50));
    const handle = `${labels.join('.')}.com`; // 258 characters, every label valid
    assert.equal(handle.length, 258);
    assert.equal(validateUsername('bluesky', `${labels.slice(0, 4).join('.')}.com`).ok, true);
    assert.equal(validateUsername('bluesky', handle).ok, false);
  });

  it('rejects the reserved top-level domains, such as the handle.invalid placeholder', () => {
    for (const handle of ['handle.invalid', 'alice.local', 'alice.example', 'alice.onion'])
      assert.equal(validateUsername('bluesky', handle).ok, false, handle);
  });

  it('accepts did:plc and did:web identifiers', () => {
    assert.deepEqual(validateUsername('bluesky', 'did:plc:z72i7hdynmk6r22z27h6tvur'), {
      ok: true,
      username: 'did:plc:z72i7hdynmk6r22z27h6tvur',
      key: 'did:plc:z72i7hdynmk6r22z27h6tvur',
    });
    assert.deepEqual(validateUsername('bluesky', 'DID:PLC:Z72I7HDYNMK6R22Z27H6TVUR').ok, true);
    assert.deepEqual(validateUsername('bluesky', 'did:web:example.com'), {
      ok: true,
      username: 'did:web:example.com',
      key: 'did:web:example.com',
    });
  });

  for (const bad of [
    'did:plc:short',
    'did:plc:z72i7hdynmk6r22z27h6tvur1',
    'did:plc:z72i7hdynmk6r22z27h6tvu1',
    'did:web:',
    'did:web:localhost',
    'did:key:z6Mk',
    'did:',
  ]) {
    it(`rejects the DID ${JSON.stringify(bad)}`, () => {
      const result = validateUsername('bluesky', bad);
      assert.equal(result.ok, false);
      assert.match(!result.ok ? result.reason : '', /did:plc/);
    });
  }

  it('rejects any line break or control character, on both platforms', () => {
    for (const value of [
      'alice\nbob',
      'alice\rbob',
      'alice\tbob',
      'ali\u0000ce',
      'alice\u0085',
      'alice\u2028bob',
      'a.b\nc.com',
    ]) {
      for (const platform of ['x', 'bluesky'] as const) {
        assert.deepEqual(
          validateUsername(platform, value),
          { ok: false, code: 'invalid_username', reason: 'contains a line break or control character' },
          `${platform} ${JSON.stringify(value)}`,
        );
      }
    }
  });
});

describe('parseAccountRef', () => {
  it('normalises, infers and validates in one step', () => {
    assert.deepEqual(parseAccountRef('@Jack', null, 'x'), { ok: true, platform: 'x', username: 'Jack', key: 'jack' });
    assert.deepEqual(parseAccountRef('https://bsky.app/profile/Alice.bsky.social', null, 'x'), {
      ok: true,
      platform: 'bluesky',
      username: 'alice.bsky.social',
      key: 'alice.bsky.social',
    });
    assert.deepEqual(parseAccountRef('alice.bsky.social', null, 'x'), {
      ok: true,
      platform: 'bluesky',
      username: 'alice.bsky.social',
      key: 'alice.bsky.social',
    });
    assert.deepEqual(parseAccountRef('jack', null, 'bluesky').ok, false); // a bare name on Bluesky is not a handle
    assert.deepEqual(parseAccountRef('https://x.com/jack', 'x', 'bluesky'), {
      ok: true,
      platform: 'x',
      username: 'jack',
      key: 'jack',
    });
  });

  it('reports an explicit platform that does not fit the value', () => {
    const result = parseAccountRef('alice.bsky.social', 'x', 'x');
    assert.deepEqual(result, {
      ok: false,
      code: 'invalid_username',
      reason: 'X usernames are 1-15 letters, digits or _',
    });
  });

  it('refuses an empty or blank value', () => {
    for (const raw of ['', '   ', '@', '\u200B']) {
      const result = parseAccountRef(raw, null, 'x');
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.code, 'invalid_username');
    }
  });
});

describe('addresses of X pages that are not profiles', () => {
  for (const raw of [
    'https://x.com/home',
    'x.com/i/lists/123',
    'https://twitter.com/search?q=perch',
    'x.com/explore',
    'https://x.com/Settings/account',
    'x.com/hashtag/launch',
    'x.com/i',
  ]) {
    it(`${raw} is refused with the reason`, () => {
      const ref = parseAccountRef(raw, null, 'x');
      assert.equal(ref.ok, false);
      assert.ok(!ref.ok && /is a page of X, not a profile/.test(ref.reason), JSON.stringify(ref));
      assert.match(normalizeUsernameInput(raw).notProfile ?? '', /^x\.com\/[a-z]+ is a page of X/);
    });
  }

  it('still accepts the bare names and real profiles that look alike', () => {
    assert.deepEqual(parseAccountRef('home', null, 'x'), { ok: true, platform: 'x', username: 'home', key: 'home' });
    assert.deepEqual(parseAccountRef('x.com/homer', null, 'x'), {
      ok: true,
      platform: 'x',
      username: 'homer',
      key: 'homer',
    });
    assert.deepEqual(parseAccountRef('x.com/ii', null, 'x'), { ok: true, platform: 'x', username: 'ii', key: 'ii' });
  });
});
