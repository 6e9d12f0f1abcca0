// Digests (DESIGN §12): what a person reads with coffee, checked field by field into a definition.
// The scope is an alert rule's (tags, platform, accounts); the timing is digest-schedule.ts's.
import { checkScope, isEmailAddress, type AlertScope } from './alert-rules.ts';
import { DIGEST_SCHEDULES, isLocalTime, isTimeZone, type DigestSchedule } from './digest-schedule.ts';
import type { FieldProblem } from './errors.ts';

export interface DigestDefinition {
  name: string;
  scope: AlertScope;
  schedule: DigestSchedule;
  at: string;
  timeZone: string;
  recipients: string[];
}

const FIELDS = ['name', 'scope', 'schedule', 'at', 'timeZone', 'recipients'];
const MAX_RECIPIENTS = 50;

type Checked<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };
type Input = Record<string, unknown>;
const isObject = (v: unknown): v is Input => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a digest as given (API body, form, command line), naming each bad field (`body/timeZone`).
 * `base` is the stored digest a change applies to: fields the input leaves out keep their value.
 */
export function checkDigest(input: unknown, base?: DigestDefinition): Checked<DigestDefinition> {
  const errors: FieldProblem[] = [];
  const fail = (field: string, message: string) => errors.push({ field: `body/${field}`, message });
  if (!isObject(input)) return { ok: false, errors: [{ field: 'body', message: 'must be an object' }] };
  for (const key of Object.keys(input)) if (!FIELDS.includes(key)) fail(key, 'is not a field of a digest');
  const given = (key: string) => input[key] !== undefined || base === undefined;

  let name = base?.name;
  if (given('name')) {
    const raw = input.name;
    if (typeof raw !== 'string' || raw.trim() === '' || raw.length > 200) fail('name', 'must be 1 to 200 characters');
    else name = raw.trim();
  }
  const scope = input.scope === undefined ? (base?.scope ?? {}) : checkScope(input.scope, fail);
  let schedule = base?.schedule ?? 'daily';
  if (input.schedule !== undefined) {
    if (typeof input.schedule !== 'string' || !(DIGEST_SCHEDULES as readonly string[]).includes(input.schedule))
      fail('schedule', 'must be daily or weekly');
    else schedule = input.schedule as DigestSchedule;
  }
  let at = base?.at ?? '08:00';
  if (input.at !== undefined) {
    if (typeof input.at !== 'string' || !isLocalTime(input.at)) fail('at', 'must be a local time such as "08:00"');
    else at = input.at;
  }
  let timeZone = base?.timeZone;
  if (given('timeZone')) {
    const raw = input.timeZone;
    if (typeof raw !== 'string' || !isTimeZone(raw))
      fail('timeZone', 'must be an IANA time zone such as Europe/Paris or America/New_York');
    else timeZone = raw;
  }
  let recipients = base?.recipients;
  if (given('recipients')) {
    const raw = input.recipients;
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_RECIPIENTS)
      fail('recipients', `must be a list of 1 to ${MAX_RECIPIENTS} e-mail addresses`);
    else {
      raw.forEach((address, i) => {
        if (typeof address !== 'string' || !isEmailAddress(address.trim()))
          fail(`recipients/${i}`, 'is not an e-mail address');
      });
      recipients = [...new Set(raw.map((a) => String(a).trim()))];
    }
  }
  if (errors.length > 0 || name === undefined || timeZone === undefined || recipients === undefined)
    return { ok: false, errors: errors.length > 0 ? errors : [{ field: 'body', message: 'is incomplete' }] };
  return { ok: true, value: { name, scope, schedule, at, timeZone, recipients } };
}
