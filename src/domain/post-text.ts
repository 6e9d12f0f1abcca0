// Per-post text analysis, done once when a post is stored: a sentiment score and a language tag.
// The rules are here; the two models (wink-nlp's English sentiment, eld's language guess) are
// passed in by the tracker, which loads them where analysis runs (tracker/text-models.ts): they
// weigh about 100 MiB, which a process that never analyses a post (`perch api`) does without.

/** The models the rules below consult. */
export interface TextModels {
  /** wink-nlp's document sentiment of the text, as it comes (nominally in [-1, 1]). */
  sentiment(text: string): number;
  /** eld's guess: an ISO 639-1 code ('' for none), and whether eld calls it reliable. */
  language(text: string): { language: string; reliable: boolean };
}

/** Longer texts (X long posts reach 25,000 characters) are cut here so one post costs a bounded time. */
const MAX_TEXT = 2_000;
/** Below this many letters a language guess is noise ("ok", "gm", "lol 😂"). */
const MIN_LETTERS = 20;

const URLS = /\bhttps?:\/\/\S+|\bwww\.\S+/giu;
const MENTIONS_AND_TAGS = /[@#＃$][\p{L}\p{N}_.-]+/gu;
const LETTER = /\p{L}/gu;

/**
 * Sentiment of a post in [-1, 1]: wink-nlp's document sentiment (its English lexicon with
 * negation, emoji and emoticon handling), which is already the mean valence of the scored words
 * scaled into [-1, 1]; it is clamped to that range and rounded to 3 decimals. wink-nlp tokenises
 * URLs, @mentions and #hashtags as their own token types and gives them no valence, so a link to
 * "…/awful-news" or a handle like @hate_watch does not move the score. Texts with no scored word
 * give 0. The lexicon is English: callers may store null for posts known to be in another language.
 */
export function scoreSentiment(models: TextModels, text: string): number {
  const score = models.sentiment(clip(text));
  if (!Number.isFinite(score)) return 0;
  return Math.round(Math.min(1, Math.max(-1, score)) * 1000) / 1000;
}

/**
 * The post's language as an ISO 639-1 code (or the platform's 3-letter code where 639-1 has none).
 * The platform's tag wins when it names a real language (see `normaliseLanguageTag`); otherwise
 * eld guesses from the text without its URLs, @mentions and #hashtags, and the guess is kept only
 * when that text has at least 20 letters and eld calls the result reliable. Null when unknown.
 */
export function detectLanguage(models: TextModels, text: string, platformLang: string | null): string | null {
  const tagged = platformLang === null ? null : normaliseLanguageTag(platformLang);
  if (tagged !== null) return tagged;
  const plain = clip(text).replace(URLS, ' ').replace(MENTIONS_AND_TAGS, ' ');
  if ((plain.match(LETTER)?.length ?? 0) < MIN_LETTERS) return null;
  const guess = models.language(plain);
  return guess.language !== '' && guess.reliable ? guess.language : null;
}

// Codes that X (BCP 47 `lang`) and Bluesky (`langs`, format "language") use for "no language":
// `und` undetermined, `zxx` no linguistic content, `mul` several, `mis` uncoded; and the
// private-use range qaa–qtz, where X puts its own: `qme` media only, `qht` hashtags only,
// `qam` mentions only, `qct` cashtags only, `qst` very short text.
const NOT_A_LANGUAGE = new Set(['und', 'zxx', 'mul', 'mis']);
const PRIVATE_USE = /^q[a-t][a-z]$/;
// X still writes some ISO 639-1 codes that were withdrawn: Indonesian `in`, Hebrew `iw`, Yiddish `ji`.
const WITHDRAWN: Readonly<Record<string, string>> = { in: 'id', iw: 'he', ji: 'yi', jw: 'jv' };

/**
 * The primary language subtag of a BCP 47 tag, lower-case (`en-US` → `en`, `hi-Latn` → `hi`,
 * `iw` → `he`), or null when the tag is not a real language (`und`, `zxx`, X's `qme`/`qht`/…,
 * empty or malformed).
 */
export function normaliseLanguageTag(tag: string): string | null {
  const primary = tag.trim().toLowerCase().split(/[-_]/, 1)[0] ?? '';
  if (!/^[a-z]{2,3}$/.test(primary)) return null;
  if (NOT_A_LANGUAGE.has(primary) || PRIVATE_USE.test(primary)) return null;
  return WITHDRAWN[primary] ?? primary;
}

/** The first MAX_TEXT characters, never ending on half a surrogate pair. */
function clip(text: string): string {
  if (text.length <= MAX_TEXT) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(MAX_TEXT - 1)) ? MAX_TEXT - 1 : MAX_TEXT;
  return text.slice(0, end);
}
