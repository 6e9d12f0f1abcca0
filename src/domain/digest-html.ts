// A digest as mail HTML: tables for layout, every style inline (mail clients drop <style> and
// classes), no images, no scripts, nothing remote; readable at phone width. Links only when the
// caller knows where the dashboard is (`baseUrl`); otherwise the names stand as bold text.
import type { DigestContent, DigestRow } from './digest-content.ts';
import { figure, handleText, signedFigure } from './figures-text.ts';
import type { Sentence, SentenceTarget } from './event-sentences.ts';

const esc = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const FONT = 'font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif';
const CELL = 'padding:6px 8px;border-bottom:1px solid #e3e6ea;font-size:14px;color:#1d2329';
const NUM = `${CELL};text-align:right;white-space:nowrap`;
const HEAD = 'padding:6px 8px;border-bottom:2px solid #c7ccd1;font-size:12px;color:#5b6570;text-align:left';
const H2 = `margin:24px 0 8px;font-size:17px;color:#1d2329;${FONT}`;
const UP = 'color:#1a7f37';
const DOWN = 'color:#b42318';

export interface HtmlOptions {
  /** The dashboard's address (links to accounts); null: no links. */
  baseUrl: string | null;
}

function href(target: SentenceTarget, baseUrl: string): string | null {
  if (target.kind === 'account')
    return `${baseUrl}/ui/accounts/${encodeURIComponent(target.platform)}/${encodeURIComponent(target.username)}`;
  if (target.kind === 'post') return /^https?:\/\//.test(target.url) ? target.url : null;
  return null;
}

function sentenceHtml(sentence: Sentence, options: HtmlOptions): string {
  return sentence
    .map((part) => {
      if (!part.link) return esc(part.text);
      const url = options.baseUrl === null && part.link.kind !== 'post' ? null : href(part.link, options.baseUrl ?? '');
      return url === null
        ? `<strong>${esc(part.text)}</strong>`
        : `<a href="${esc(url)}" style="color:#0b5cad">${esc(part.text)}</a>`;
    })
    .join('');
}

function accountName(row: DigestRow, options: HtmlOptions): string {
  return sentenceHtml(
    [{ text: handleText(row.username), link: { kind: 'account', platform: row.platform, username: row.username } }],
    options,
  );
}

const changeHtml = (value: number | null) =>
  `<span style="${value !== null && value > 0 ? UP : value !== null && value < 0 ? DOWN : ''}">${esc(signedFigure(value))}</span>`;
const percentHtml = (value: number | null) => (value === null ? '–' : `${changeHtml(value)}&nbsp;%`);
const was = (value: number | null) =>
  `<br><span style="font-size:12px;color:#5b6570">was ${esc(value === null ? '?' : signedFigure(value))}</span>`;
const wasPlain = (value: number | null) =>
  `<br><span style="font-size:12px;color:#5b6570">was ${esc(figure(value))}</span>`;

function figuresRow(label: string, r: Omit<DigestRow, 'platform' | 'username'>): string {
  return `<tr><td style="${CELL}">${label}</td><td style="${NUM}">${esc(figure(r.followers))}</td><td style="${NUM}">${changeHtml(r.change)}${was(r.previousChange)}</td><td style="${NUM}">${percentHtml(r.growth)}</td><td style="${NUM}">${esc(figure(r.posts))}${wasPlain(r.previousPosts)}</td><td style="${NUM}">${esc(figure(r.engagement))}${wasPlain(r.previousEngagement)}</td></tr>`;
}

const TABLE = `width="100%" cellpadding="0" cellspacing="0" role="presentation" style="border-collapse:collapse;${FONT}"`;
const FIGURE_HEAD = `<tr><th style="${HEAD}">Account</th><th style="${HEAD};text-align:right">Followers</th><th style="${HEAD};text-align:right">Change</th><th style="${HEAD};text-align:right">Growth</th><th style="${HEAD};text-align:right">Posts</th><th style="${HEAD};text-align:right">Engagement</th></tr>`;

function movers(title: string, rows: readonly DigestRow[], options: HtmlOptions): string {
  if (rows.length === 0) return '';
  const items = rows
    .map(
      (r) =>
        `<tr><td style="${CELL}">${accountName(r, options)}</td><td style="${NUM}">${changeHtml(r.change)}</td><td style="${NUM}">${percentHtml(r.growth)}</td></tr>`,
    )
    .join('');
  return `<h2 style="${H2}">${esc(title)}</h2><table ${TABLE}>${items}</table>`;
}

function sentences(title: string, list: DigestContent['events'], options: HtmlOptions): string {
  if (list.length === 0) return '';
  const items = list
    .map(
      (e) =>
        `<tr><td style="${CELL};width:1%;white-space:nowrap;color:#5b6570;font-size:12px">${esc(new Date(e.at).toISOString().slice(0, 16).replace('T', ' '))}&nbsp;UTC</td><td style="${CELL}">${sentenceHtml(e.sentence, options)}</td></tr>`,
    )
    .join('');
  return `<h2 style="${H2}">${esc(title)}</h2><table ${TABLE}>${items}</table>`;
}

/** The whole message body: a complete HTML document. */
export function digestHtml(content: DigestContent, options: HtmlOptions): string {
  const late = content.late
    ? `<p style="margin:0 0 12px;padding:8px 12px;background:#fff4e5;border-left:4px solid #d97706;font-size:14px;${FONT}">Sent late: perch was not running at the scheduled time.</p>`
    : '';
  const rows = content.rows.map((r) => figuresRow(accountName(r, options), r)).join('');
  const more =
    content.more > 0
      ? `<p style="font-size:13px;color:#5b6570;${FONT}">And ${esc(figure(content.more))} more accounts, counted in the totals.</p>`
      : '';
  const moreEvents =
    content.moreEvents > 0
      ? `<p style="font-size:13px;color:#5b6570;${FONT}">And ${esc(figure(content.moreEvents))} more events in this period.</p>`
      : '';
  const quiet =
    content.events.length === 0 && content.alerts.length === 0
      ? `<p style="font-size:14px;color:#5b6570;${FONT}">No events in this period.</p>`
      : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(content.name)}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7">
<table width="100%" cellpadding="0" cellspacing="0" role="presentation" style="background:#f4f5f7"><tr><td align="center" style="padding:16px 8px">
<table width="100%" cellpadding="0" cellspacing="0" role="presentation" style="max-width:720px;background:#ffffff;border-radius:6px;${FONT}"><tr><td style="padding:20px 16px">
<h1 style="margin:0 0 4px;font-size:20px;color:#1d2329;${FONT}">${esc(content.name)}</h1>
<p style="margin:0 0 16px;font-size:13px;color:#5b6570;${FONT}">${esc(content.period)} · ${esc(figure(content.accounts))} accounts</p>
${late}<table ${TABLE}>${FIGURE_HEAD}${figuresRow('<strong>All accounts</strong>', content.totals)}</table>
${movers('Top movers up', content.gainers, options)}
${movers('Top movers down', content.losers, options)}
${sentences('Alerts', content.alerts, options)}
${sentences('Events', content.events, options)}${quiet}${moreEvents}
<h2 style="${H2}">Accounts</h2>
<table ${TABLE}>${FIGURE_HEAD}${rows}</table>${more}
<p style="margin:24px 0 0;font-size:12px;color:#5b6570;${FONT}">Changes are this period against the one before ("was"). Sent by perch.</p>
</td></tr></table>
</td></tr></table>
</body></html>
`;
}
