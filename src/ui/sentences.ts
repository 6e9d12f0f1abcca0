// An event's sentence (domain/event-sentences.ts) as escaped HTML with the dashboard's links, and
// the event's raw JSON one click away.
import { eventSentence, type SentencePart, type SentenceTarget } from '../domain/event-sentences.ts';
import { accountHref } from './format.ts';
import { html, type Html } from './html.ts';

/** Where a sentence's link goes on the dashboard; a post opens on its platform. */
export function targetHref(target: SentenceTarget): string {
  switch (target.kind) {
    case 'account':
      return accountHref(target.platform, target.username);
    case 'post':
      return target.url;
    case 'import':
      return '/ui/import';
    case 'webhook':
      return `/ui/webhooks/${encodeURIComponent(target.id)}`;
    case 'alert':
      return `/ui/alerts/${encodeURIComponent(target.id)}`;
  }
}

function partHtml(part: SentencePart): Html | string {
  if (!part.link) return part.text;
  const href = targetHref(part.link);
  // Only a post's own https address leaves the dashboard; anything else it names is not a link.
  if (part.link.kind === 'post')
    return href.startsWith('https://') ? html`<a href="${href}" rel="noreferrer noopener">${part.text}</a>` : part.text;
  return html`<a href="${href}">${part.text}</a>`;
}

export function sentenceHtml(event: { type: string; data: unknown }): Html {
  return html`<span class="sentence">${eventSentence(event).map(partHtml)}</span>`;
}

/** The sentence, then the raw JSON behind a disclosure. */
export function eventCell(event: { type: string; data: unknown }): Html {
  return html`${sentenceHtml(event)}
<details class="raw">
<summary>JSON</summary>
<pre><code>${JSON.stringify(event.data, null, 2)}</code></pre>
</details>`;
}
