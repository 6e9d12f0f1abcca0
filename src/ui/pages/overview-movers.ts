// The Overview's top movers: the accounts that gained most followers over 7 days, read from the
// accounts' growth index (the list's `-followersChange7d` sort), each said as a sentence.
import { figure, plural } from '../../domain/figures-text.ts';
import type { AccountAnalysis } from '../../domain/analysis.ts';
import { listAccountPage } from '../../services/accounts.ts';
import type { ServiceDeps } from '../../services/context.ts';
import { accountHref } from '../format.ts';
import { html, type Html } from '../html.ts';

const SHOWN = 5;

export async function topGainers(accounts: ServiceDeps): Promise<Html> {
  const page = await listAccountPage(accounts, {}, { sort: '-followersChange7d', limit: SHOWN });
  const movers = page.data.flatMap((account) => {
    const f = (account.analysis as AccountAnalysis | null)?.followers;
    return f && f.change7d !== null && f.change7d > 0 ? [{ account, change: f.change7d, rate: f.growthRate7d }] : [];
  });
  if (movers.length === 0)
    return html`<p class="hint" id="movers-none">No account gained followers over the last 7 days yet.</p>`;
  const item = (m: (typeof movers)[number]) => html`<li>
  <a href="${accountHref(m.account.platform, m.account.username)}">@${m.account.username}</a> gained ${plural(m.change, 'follower')} in 7 days${m.rate === null ? '' : ` (+${figure(m.rate)}%)`}
</li>`;
  return html`<ol class="movers" id="movers">
${movers.map(item)}
</ol>`;
}
