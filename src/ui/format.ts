// How numbers, dates and statuses read on the dashboard.
import { dollars } from '../domain/figures-text.ts';
import { html, type Html } from './html.ts';

const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat('en', { maximumFractionDigits: 2 });

export function num(value: number | null | undefined): string {
  return value === null || value === undefined
    ? '—'
    : Number.isInteger(value)
      ? integer.format(value)
      : decimal.format(value);
}

/** Dollars, at least to the cent and with the decimals the amount has ($0.005 per post stays $0.005). */
export const usd = dollars;

export function signed(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value > 0 ? `+${num(value)}` : num(value);
}

/** An ISO time shown in UTC, to the minute, inside a <time> element. */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`—`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;
}

export function statusBadge(status: string): Html {
  return html`<span class="badge status-${status}">${status.replace('_', ' ')}</span>`;
}

/** The account page of an account. */
export function accountHref(platform: string, username: string): string {
  return `/ui/accounts/${encodeURIComponent(platform)}/${encodeURIComponent(username)}`;
}
