// Every event type said as one short sentence ("@sable_122 is now @maple_000123"), as parts: plain
// text and linked text with what the link points at. The dashboard renders the parts as escaped
// HTML with its own URLs, digests as mail HTML or plain text; the wording is written once, here.
// Event data comes from the store and from older versions of perch: every field is read
// defensively, and a sentence never throws (a missing figure reads "?").
import { figure, handleText, plural } from './figures-text.ts';

/** What a linked part points at; each renderer decides the URL. */
export type SentenceTarget =
  | { kind: 'account'; platform: string; username: string }
  | { kind: 'post'; url: string }
  | { kind: 'import'; id: string }
  | { kind: 'webhook'; id: string }
  | { kind: 'alert'; id: string };

export interface SentencePart {
  text: string;
  link?: SentenceTarget;
}

export type Sentence = SentencePart[];

/** The fields of an event a sentence reads (a stored event, a webhook body, an SSE message). */
export interface SentenceEvent {
  type: string;
  data: unknown;
}

type Data = Record<string, unknown>;

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const numOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const objOf = (value: unknown): Data | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Data) : null;

/** "@name" (handleText) linked to the account, or "an account" when the event carries none. */
function who(data: Data, username?: string | null): SentencePart {
  const account = objOf(data.account);
  const platform = str(account?.platform);
  const name = username ?? str(account?.username);
  if (name === null) return { text: 'an account' };
  const text = handleText(name);
  return platform === null ? { text } : { text, link: { kind: 'account', platform, username: name } };
}

/** How a status reads after "@name …": "was suspended", "is active again". */
const STATUS_PHRASES: Record<string, string> = {
  active: 'is active',
  protected: 'became protected',
  not_found: 'was not found',
  suspended: 'was suspended',
  error: 'could not be checked',
  paused: 'was paused',
  pending: 'is waiting for its first check',
};

function statusPhrase(from: string | null, to: string | null): string {
  if (to === null) return 'changed status';
  if (to === 'active' && from !== null && from !== 'pending') return 'is active again';
  return STATUS_PHRASES[to] ?? `is now ${to.replace(/_/g, ' ')}`;
}

/** Text cut to `max` characters at most, with an ellipsis when cut. */
function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** "12 followers and lost 3" style halves of a gain/loss pair. */
function gainedLost(gained: number | null, lost: number | null): string {
  const g = gained ?? 0;
  const l = lost ?? 0;
  if (g > 0 && l > 0) return ` gained ${plural(g, 'follower')} and lost ${figure(l)}`;
  if (g > 0) return ` gained ${plural(g, 'follower')}`;
  if (l > 0) return ` lost ${plural(l, 'follower')}`;
  return ' had no follower changes';
}

/** The alert metrics of §12 in words. */
const METRIC_WORDS: Record<string, string> = {
  followers: 'followers',
  following: 'following',
  posts: 'posts',
  engagementRate: 'engagement rate',
};

const SENTENCES: Record<string, (data: Data) => Sentence> = {
  'account.checked_first': (d) => {
    const status = str(d.status);
    return [who(d), { text: ` was checked for the first time${status ? `: ${status.replace(/_/g, ' ')}` : ''}` }];
  },
  'account.status_changed': (d) => {
    const reason = str(d.reason);
    return [who(d), { text: ` ${statusPhrase(str(d.from), str(d.to))}${reason ? ` (${cut(reason, 120)})` : ''}` }];
  },
  'account.renamed': (d) => {
    const from = str(d.from);
    return [{ text: from === null ? 'an account' : handleText(from) }, { text: ' is now ' }, who(d, str(d.to))];
  },
  'account.followers_milestone': (d) => [who(d), { text: ` passed ${plural(numOf(d.milestone), 'follower')}` }],
  'account.followers_spike': (d) => {
    const change = numOf(d.change);
    const percent = numOf(d.percent);
    const hours = numOf(d.windowHours);
    const verb = change !== null && change < 0 ? 'lost' : 'gained';
    const pct = percent === null ? '' : ` (${change !== null && change < 0 ? '−' : '+'}${figure(percent)}%)`;
    const span = hours === null ? '' : ` in ${figure(hours)} h`;
    return [who(d), { text: ` ${verb} ${plural(change === null ? null : Math.abs(change), 'follower')}${span}${pct}` }];
  },
  'account.posted': (d) => {
    const post = objOf(d.post);
    const url = str(post?.url);
    const text = str(post?.text);
    const linked: SentencePart = { text: 'posted', ...(url ? { link: { kind: 'post', url } as const } : {}) };
    return [who(d), { text: ' ' }, linked, ...(text ? [{ text: `: “${cut(text, 140)}”` }] : [])];
  },
  'post.deleted': (d) => [who(d), { text: ' deleted a post' }],
  'account.followers_changed': (d) => [who(d), { text: gainedLost(numOf(d.gainedCount), numOf(d.lostCount)) }],
  'alert.triggered': (d) => {
    const rule = objOf(d.rule);
    const id = str(rule?.id);
    const name = str(rule?.name) ?? id ?? 'an alert';
    const metric = str(d.metric);
    const metricWords = metric === null ? 'a metric' : (METRIC_WORDS[metric] ?? metric);
    const value = numOf(d.value);
    const threshold = numOf(d.threshold);
    const baseline = numOf(d.baseline);
    const hours = numOf(d.windowHours);
    const against =
      threshold !== null ? `threshold ${figure(threshold)}` : baseline !== null ? `baseline ${figure(baseline)}` : null;
    const details = [against, hours === null ? null : `over ${figure(hours)} h`].filter((x) => x !== null);
    return [
      { text: 'Alert ' },
      { text: `“${name}”`, ...(id ? { link: { kind: 'alert', id } as const } : {}) },
      { text: ' fired for ' },
      who(d),
      { text: `: ${metricWords} ${figure(value)}${details.length > 0 ? ` (${details.join(', ')})` : ''}` },
    ];
  },
  'import.completed': (d) => {
    const id = str(d.importId);
    const rejected = numOf(d.rejectedCount) ?? 0;
    const reactivated = numOf(d.reactivated) ?? 0;
    const tail = [
      reactivated > 0 ? `${figure(reactivated)} resumed` : null,
      rejected > 0 ? `${figure(rejected)} rejected` : null,
    ].filter((x) => x !== null);
    return [
      { text: 'An ' },
      { text: 'import', ...(id ? { link: { kind: 'import', id } as const } : {}) },
      {
        text: ` added ${plural(numOf(d.inserted), 'account')} of ${figure(numOf(d.received))} received${tail.length > 0 ? ` (${tail.join(', ')})` : ''}`,
      },
    ];
  },
  'webhook.test': (d) => {
    const id = str(d.webhookId);
    return [
      { text: 'A test event for ' },
      { text: id === null ? 'a webhook' : `webhook ${id}`, ...(id ? { link: { kind: 'webhook', id } as const } : {}) },
    ];
  },
};

/** The sentence of one event; an unknown type reads as its name and account. */
export function eventSentence(event: SentenceEvent): Sentence {
  const data = objOf(event.data) ?? {};
  const render = SENTENCES[event.type];
  if (render) return render(data);
  return data.account ? [{ text: `${event.type}: ` }, who(data)] : [{ text: event.type }];
}

/** The sentence as plain text (no links), e.g. for a mail's text part or a log line. */
export function sentenceText(sentence: readonly SentencePart[]): string {
  return sentence.map((part) => part.text).join('');
}

/** The event types that have a sentence of their own. */
export const SENTENCE_TYPES = Object.keys(SENTENCES);
