// Tests for the per-post sentiment score and language tag.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectLanguage, normaliseLanguageTag, scoreSentiment } from '../../src/domain/post-text.ts';
import { loadTextModels } from '../../src/tracker/text-models.ts';

const models = await loadTextModels();

describe('scoreSentiment', () => {
  it('scores clearly positive English above 0.05 and clearly negative below -0.05', () => {
    for (const text of [
      'I love this, what a wonderful day!',
      'Great work team, thank you so much 🙏',
      'So happy with the results :)',
    ]) {
      assert.ok(scoreSentiment(models, text) > 0.05, `${text}: ${scoreSentiment(models, text)}`);
    }
    for (const text of [
      'This is terrible, I hate it.',
      'Awful service, totally broken and useless',
      'I am not happy at all 😡',
    ]) {
      assert.ok(scoreSentiment(models, text) < -0.05, `${text}: ${scoreSentiment(models, text)}`);
    }
  });

  it('gives 0 to neutral or empty text', () => {
    assert.equal(scoreSentiment(models, 'Meeting at 3pm to discuss the quarterly roadmap.'), 0);
    assert.equal(scoreSentiment(models, ''), 0);
  });

  it('is not moved by URLs, @mentions or #hashtags', () => {
    const plain = scoreSentiment(models, 'I love this');
    assert.equal(
      scoreSentiment(models, 'I love this https://example.com/awful-terrible-news @hate_watch #worstday'),
      plain,
    );
    assert.equal(scoreSentiment(models, '@hate_watch https://example.com/awful #terrible'), 0);
  });

  it('stays within [-1, 1] with 3 decimals, even for very long text', () => {
    for (const text of ['love '.repeat(10_000), 'hate hate hate', '😍😍😍😍']) {
      const score = scoreSentiment(models, text);
      assert.ok(score >= -1 && score <= 1, String(score));
      assert.equal(Math.round(score * 1000) / 1000, score);
    }
  });
});

describe('detectLanguage', () => {
  it('recognises English, French and German sentences', () => {
    assert.equal(
      detectLanguage(models, 'The weather is lovely today, so we are going for a walk in the park.', null),
      'en',
    );
    assert.equal(
      detectLanguage(models, "Je suis très content de vous annoncer notre nouveau produit aujourd'hui !", null),
      'fr',
    );
    assert.equal(detectLanguage(models, 'Heute ist ein schöner Tag, wir gehen in den Park und essen Eis.', null), 'de');
  });

  it("prefers the platform's tag when it names a language", () => {
    assert.equal(detectLanguage(models, 'Heute ist ein schöner Tag, wir gehen in den Park und essen Eis.', 'en'), 'en');
    assert.equal(detectLanguage(models, 'anything', 'pt-BR'), 'pt');
    assert.equal(detectLanguage(models, 'anything', 'iw'), 'he');
  });

  it('ignores X tags for undetermined or non-linguistic posts', () => {
    for (const tag of ['und', 'zxx', 'qme', 'qht', 'qam', 'qct', 'qst', '', 'not a tag']) {
      assert.equal(
        detectLanguage(models, 'Heute ist ein schöner Tag, wir gehen in den Park und essen Eis.', tag),
        'de',
        tag,
      );
      assert.equal(detectLanguage(models, 'ok', tag), null, tag);
    }
  });

  it('returns null for short text, and for text that is only links, mentions and hashtags', () => {
    for (const text of [
      'ok',
      'merci beaucoup',
      'gm ☕',
      '😂😂😂',
      'https://example.com/some/long/path/here @someone.bsky.social #AnotherLongHashtag',
    ]) {
      assert.equal(detectLanguage(models, text, null), null, text);
    }
  });
});

describe('normaliseLanguageTag', () => {
  it('keeps the primary subtag in lower case', () => {
    const cases: Array<[string, string | null]> = [
      ['en', 'en'],
      ['EN-us', 'en'],
      ['zh_TW', 'zh'],
      ['hi-Latn', 'hi'],
      ['fil', 'fil'],
      [' ja ', 'ja'],
      ['in', 'id'],
      ['ji', 'yi'],
      ['mul', null],
      ['qaa', null],
      ['qtz', null],
      ['qu', 'qu'],
      ['e', null],
      ['engl', null],
      ['1a', null],
    ];
    for (const [tag, expected] of cases) assert.equal(normaliseLanguageTag(tag), expected, tag);
  });
});
