// A digest as the plain-text part of the mail: the same content as digest-html.ts, in lines.
import type { DigestContent, DigestRow } from './digest-content.ts';
import { sentenceText } from './event-sentences.ts';
import { figure, handleText, signedFigure } from './figures-text.ts';

const percent = (value: number | null) => (value === null ? '' : ` (${signedFigure(value)} %)`);

function figures(r: Omit<DigestRow, 'platform' | 'username'>): string {
  return [
    `${figure(r.followers)} followers, ${signedFigure(r.change)}${percent(r.growth)} (was ${signedFigure(r.previousChange)})`,
    `${figure(r.posts)} posts (was ${figure(r.previousPosts)})`,
    `engagement ${figure(r.engagement)} (was ${figure(r.previousEngagement)})`,
  ].join('; ');
}

const stamp = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export function digestText(content: DigestContent): string {
  const lines: string[] = [content.name, content.period, `${figure(content.accounts)} accounts`, ''];
  if (content.late) lines.push('Sent late: perch was not running at the scheduled time.', '');
  lines.push(`All accounts: ${figures(content.totals)}`, '');
  const movers = (title: string, rows: readonly DigestRow[]) => {
    if (rows.length === 0) return;
    lines.push(title);
    for (const r of rows)
      lines.push(`  ${handleText(r.username)} (${r.platform}) ${signedFigure(r.change)}${percent(r.growth)}`);
    lines.push('');
  };
  movers('Top movers up', content.gainers);
  movers('Top movers down', content.losers);
  const said = (title: string, list: DigestContent['events']) => {
    if (list.length === 0) return;
    lines.push(title);
    for (const e of list) lines.push(`  ${stamp(e.at)}  ${sentenceText(e.sentence)}`);
    lines.push('');
  };
  said('Alerts', content.alerts);
  said('Events', content.events);
  if (content.events.length === 0 && content.alerts.length === 0) lines.push('No events in this period.', '');
  if (content.moreEvents > 0) lines.push(`And ${figure(content.moreEvents)} more events in this period.`, '');
  lines.push('Accounts');
  for (const r of content.rows) lines.push(`  ${handleText(r.username)} (${r.platform}): ${figures(r)}`);
  if (content.more > 0) lines.push(`  And ${figure(content.more)} more accounts, counted in the totals.`);
  lines.push('', 'Changes are this period against the one before ("was"). Sent by perch.');
  return `${lines.join('\n')}\n`;
}
