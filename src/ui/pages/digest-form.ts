// The digest form (create on /ui/digests, edit on /ui/digests/:id) and how its fields become the
// API's body: lists typed as commas, the rest as the API has them, so the domain checks both alike.
import { Type } from '@sinclair/typebox';
import type { FieldProblem } from '../../domain/errors.ts';
import { PLATFORMS } from '../../domain/platforms.ts';
import type { DigestView } from '../../services/digests.ts';
import type { UiSession } from '../../services/ui-sessions.ts';
import { FormBody, Text } from '../forms.ts';
import { html, type Html } from '../html.ts';
import { csrfField } from '../layout.ts';

export const DigestBody = FormBody({
  name: Text(200),
  tags: Type.Optional(Text()),
  platform: Type.Optional(Text(20)),
  accounts: Type.Optional(Text()),
  schedule: Text(20),
  at: Text(10),
  timeZone: Text(64),
  recipients: Text(5_000),
});

const list = (text: string | undefined) =>
  (text ?? '')
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** The form's fields as the API's body. */
export function digestInput(body: typeof DigestBody.static): Record<string, unknown> {
  const tags = list(body.tags);
  const accounts = list(body.accounts);
  return {
    name: body.name,
    scope: {
      ...(tags.length > 0 ? { tags } : {}),
      ...(body.platform ? { platform: body.platform } : {}),
      ...(accounts.length > 0 ? { accounts } : {}),
    },
    schedule: body.schedule,
    at: body.at,
    timeZone: body.timeZone.trim(),
    recipients: list(body.recipients),
  };
}

/** What the form says about each field the domain refused ("Time zone: must be an IANA time zone…"). */
const LABELS: Record<string, string> = {
  name: 'Name',
  scope: 'Scope',
  tags: 'Tags',
  platform: 'Platform',
  accounts: 'Accounts',
  schedule: 'Schedule',
  at: 'Time',
  timeZone: 'Time zone',
  recipients: 'Recipients',
};

export function problemList(errors: readonly FieldProblem[] | undefined): Html {
  if (!errors || errors.length === 0) return html``;
  const label = (field: string | undefined) => {
    const parts = (field ?? '').replace(/^body\/?/, '').split('/');
    const name = parts[0] === 'scope' && parts[1] ? parts[1] : (parts[0] ?? '');
    const index = parts.find((p) => /^\d+$/.test(p));
    return `${LABELS[name] ?? name}${index === undefined ? '' : ` (item ${Number(index) + 1})`}`;
  };
  return html`<ul class="problems" id="digest-problems">
${errors.map((e) => html`<li>${label(e.field)}: ${e.message}</li>`)}
</ul>`;
}

const option = (value: string, label: string, chosen: string) =>
  html`<option value="${value}"${value === chosen ? html` selected` : ''}>${label}</option>`;

export function digestForm(session: UiSession, action: string, d: DigestView | null, submit: string): Html {
  const v = {
    name: d?.name ?? '',
    tags: d?.scope.tags?.join(', ') ?? '',
    platform: d?.scope.platform ?? '',
    accounts: d?.scope.accounts?.join(', ') ?? '',
    schedule: d?.schedule ?? 'daily',
    at: d?.at ?? '08:00',
    timeZone: d?.timeZone ?? 'Europe/Paris',
    recipients: d?.recipients.join(', ') ?? '',
  };
  return html`<form method="post" action="${action}" id="digest-form">
  ${csrfField(session)}
  <div class="filters">
    <div class="wide">
      <label for="digest-name">Name</label>
      <input id="digest-name" name="name" required maxlength="200" value="${v.name}" autocomplete="off">
    </div>
    <div>
      <label for="digest-schedule">Schedule</label>
      <select id="digest-schedule" name="schedule">
        ${option('daily', 'Daily', v.schedule)}
        ${option('weekly', 'Weekly (Mondays)', v.schedule)}
      </select>
    </div>
    <div>
      <label for="digest-at">Time</label>
      <input id="digest-at" name="at" type="time" required value="${v.at}">
    </div>
    <div class="wide">
      <label for="digest-zone">Time zone</label>
      <input id="digest-zone" name="timeZone" required value="${v.timeZone}" placeholder="Europe/Paris" autocomplete="off">
    </div>
    <div class="wide">
      <label for="digest-recipients">Recipients</label>
      <input id="digest-recipients" name="recipients" required value="${v.recipients}" placeholder="desk@example.com, editor@example.com" autocomplete="off">
    </div>
    <div>
      <label for="digest-tags">Tags (optional)</label>
      <input id="digest-tags" name="tags" value="${v.tags}" placeholder="press, vip" autocomplete="off">
    </div>
    <div>
      <label for="digest-platform">Platform</label>
      <select id="digest-platform" name="platform">
        ${option('', 'Any', v.platform)}
        ${PLATFORMS.map((p) => option(p, p, v.platform))}
      </select>
    </div>
    <div>
      <label for="digest-accounts">Accounts (optional)</label>
      <input id="digest-accounts" name="accounts" value="${v.accounts}" placeholder="acc_12, acc_40" autocomplete="off">
    </div>
  </div>
  <p>
    <button type="submit">${submit}</button>
  </p>
</form>`;
}
