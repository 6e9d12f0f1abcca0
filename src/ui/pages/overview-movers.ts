// The Overview's top movers: the accounts that gained and lost most followers over 24 hours and
// 7 days, each said as a sentence with its % growth, from the growth indexes (services/movers.ts).
import { figure, handleText, plural } from '../../domain/figures-text.ts';
import { readMovers, type MoverList, type RankedMover } from '../../services/movers.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { accountHref } from '../format.ts';
import { html, type Html } from '../html.ts';

const SHOWN = 5;

const WINDOW_TEXT = { '1d': '24 hours', '7d': '7 days' } as const;

function moverItem(m: RankedMover, list: MoverList): Html {
  const verb = m.change > 0 ? 'gained' : 'lost';
  const percent = m.percent === null ? '' : ` (${m.percent > 0 ? '+' : '−'}${figure(Math.abs(m.percent))}%)`;
  return html`<li>
  <a href="${accountHref(m.platform, m.username)}">${handleText(m.username)}</a> ${verb} ${plural(Math.abs(m.change), 'follower')} in ${WINDOW_TEXT[list.window]}${percent}
</li>`;
}

function moverList(list: MoverList): Html {
  const id = `movers-${list.window}-${list.direction}`;
  const title = `${list.direction === 'up' ? 'Gained most' : 'Lost most'} in ${WINDOW_TEXT[list.window]}`;
  const body =
    list.movers.length === 0
      ? html`<p class="hint">No account ${list.direction === 'up' ? 'gained' : 'lost'} followers over the last ${WINDOW_TEXT[list.window]} yet.</p>`
      : html`<ol class="movers">
${list.movers.map((m) => moverItem(m, list))}
</ol>`;
  return html`<div class="mover-list" id="${id}">
<h3>${title}</h3>
${body}
</div>`;
}

export async function topMovers(accounts: ServiceDeps): Promise<Html> {
  const lists = await readMovers(accounts, SHOWN);
  return html`<div class="mover-grid" id="movers">
${lists.map(moverList)}
</div>`;
}
