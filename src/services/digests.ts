// Digest use cases shared by the API, the dashboard and the CLI: define, change, delete, read,
// preview (the next one rendered now), and send what is due, claimed once per period in the
// store (digest-scheduler.ts runs that on the loop). Each change is audited in its transaction.
import { newId } from '../domain/ids.ts';
import { PerchError } from '../domain/errors.ts';
import { checkDigest, type DigestDefinition } from '../domain/digests.ts';
import { buildDigest, EVENTS_SHOWN } from '../domain/digest-content.ts';
import { digestHtml } from '../domain/digest-html.ts';
import { digestText } from '../domain/digest-text.ts';
import { lastSendAt, nextSendAt, periodEndingAt, periodLabel } from '../domain/digest-schedule.ts';
import { writeAudit } from '../storage/audit-repo.ts';
import { readDigestEvents, readDigestFigures } from '../storage/digest-figures-repo.ts';
import {
  claimDigestSend,
  deleteDigest,
  findDigest,
  insertDigest,
  listDigests,
  listDigestSends,
  setDigestSendMail,
  updateDigest,
  type DigestRecord,
  type DigestSendView,
} from '../storage/digests-repo.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from '../clock.ts';
import { enqueueMail } from './mail-outbox.ts';

export interface DigestDeps {
  store: Store;
  clock: Clock;
  /** Whether mail is configured (SMTP_URL): without it digests are previews only. */
  mailOn: boolean;
}

export interface DigestView extends Omit<DigestDefinition, 'scope'> {
  id: string;
  scope: { tags?: string[]; platform?: string; accounts?: string[] };
  /** When the next one goes out (never, without mail). */
  nextSendAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface RenderedDigest {
  subject: string;
  html: string;
  text: string;
  periodStart: string;
  periodEnd: string;
  late: boolean;
}

/** A send after its time by more than this is marked late (perch was down, or busy). */
export const LATE_AFTER_MS = 15 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

export function toDigestView(d: DigestRecord, now: number, mailOn: boolean): DigestView {
  const { scope, id, createdAt, updatedAt, ...rest } = d;
  return {
    id,
    ...rest,
    scope: {
      ...(scope.tags ? { tags: scope.tags } : {}),
      ...(scope.platform ? { platform: scope.platform } : {}),
      ...(scope.accounts ? { accounts: scope.accounts.map((n) => `acc_${n}`) } : {}),
    },
    nextSendAt: mailOn ? iso(nextSendAt(d, now)) : null,
    createdAt: iso(createdAt),
    updatedAt: iso(updatedAt),
  };
}

function checked(input: unknown, base?: DigestDefinition): DigestDefinition {
  const result = checkDigest(input, base);
  if (!result.ok)
    throw new PerchError('validation_failed', 'The digest has fields that are not valid.', { errors: result.errors });
  return result.value;
}

async function found(deps: DigestDeps, id: string): Promise<DigestRecord> {
  const digest = await findDigest(deps.store.db, id);
  if (!digest) throw new PerchError('digest_not_found', `There is no digest ${id}.`);
  return digest;
}

export async function createDigest(deps: DigestDeps, input: unknown, actor: string | null): Promise<DigestView> {
  const definition = checked(input);
  const now = deps.clock.now();
  const id = newId('dgst');
  await deps.store.db.transaction().execute(async (trx) => {
    await insertDigest(trx, id, definition, now);
    await writeAudit(trx, { actor, action: 'digest.create', target: id, detail: { name: definition.name }, at: now });
  });
  return toDigestView(await found(deps, id), now, deps.mailOn);
}

export async function changeDigest(
  deps: DigestDeps,
  id: string,
  input: unknown,
  actor: string | null,
): Promise<DigestView> {
  const definition = checked(input, await found(deps, id));
  const now = deps.clock.now();
  const changed = await deps.store.db.transaction().execute(async (trx) => {
    const ok = await updateDigest(trx, id, definition, now);
    if (ok) await writeAudit(trx, { actor, action: 'digest.update', target: id, at: now });
    return ok;
  });
  if (!changed) throw new PerchError('digest_not_found', `There is no digest ${id}.`);
  return toDigestView(await found(deps, id), now, deps.mailOn);
}

export async function removeDigest(deps: DigestDeps, id: string, actor: string | null): Promise<void> {
  const now = deps.clock.now();
  const removed = await deps.store.db.transaction().execute(async (trx) => {
    const ok = await deleteDigest(trx, id);
    if (ok) await writeAudit(trx, { actor, action: 'digest.delete', target: id, at: now });
    return ok;
  });
  if (!removed) throw new PerchError('digest_not_found', `There is no digest ${id}.`);
}

export async function readDigest(deps: DigestDeps, id: string): Promise<DigestView> {
  return toDigestView(await found(deps, id), deps.clock.now(), deps.mailOn);
}

export async function readDigests(deps: DigestDeps): Promise<DigestView[]> {
  const now = deps.clock.now();
  return (await listDigests(deps.store.reader)).map((d) => toDigestView(d, now, deps.mailOn));
}

export async function readDigestSends(deps: DigestDeps, id: string): Promise<DigestSendView[]> {
  await found(deps, id);
  return listDigestSends(deps.store.reader, id, 50);
}

/** The digest of the period that ends at `periodEnd`, rendered (reads only). */
export async function renderDigest(
  store: Store,
  digest: DigestRecord,
  periodEnd: number,
  late: boolean,
  options: { baseUrl?: string | null } = {},
): Promise<RenderedDigest> {
  const period = periodEndingAt(digest, periodEnd);
  const [accounts, events] = await Promise.all([
    readDigestFigures(store.reader, digest.scope, period),
    readDigestEvents(store.reader, digest.scope, period, EVENTS_SHOWN),
  ]);
  const label = periodLabel(digest, period);
  const content = buildDigest({
    name: digest.name,
    period: label,
    late,
    accounts,
    events: events.events,
    eventTotal: events.total,
  });
  return {
    subject: `${late ? '[late] ' : ''}${digest.name}: ${label}`,
    html: digestHtml(content, { baseUrl: options.baseUrl ?? null }),
    text: digestText(content),
    periodStart: iso(period.start),
    periodEnd: iso(period.end),
    late,
  };
}

/** The next digest rendered now: the period that would end at its next send, up to this moment. */
export async function previewDigest(deps: DigestDeps, id: string, options: { baseUrl?: string | null } = {}) {
  const digest = await found(deps, id);
  return renderDigest(deps.store, digest, nextSendAt(digest, deps.clock.now()), false, options);
}

/**
 * Sends each digest's latest due period that no process has sent: claimed in the store first (the
 * claim and the queued message commit together), so with many processes it goes out once. A period
 * missed while perch was down goes out when it is back, marked late; only the latest one, once.
 * Periods that ended before the digest existed are not sent. Returns how many were queued.
 */
export async function sendDueDigests(deps: DigestDeps): Promise<number> {
  const now = deps.clock.now();
  let sent = 0;
  for (const digest of await listDigests(deps.store.reader)) {
    const end = lastSendAt(digest, now);
    if (end < digest.createdAt) continue;
    const sends = await listDigestSends(deps.store.reader, digest.id, 1);
    if (sends[0] !== undefined && sends[0].periodEnd >= end) continue;
    const late = now - end > LATE_AFTER_MS;
    const mail = await renderDigest(deps.store, digest, end, late);
    const queued = await deps.store.db.transaction().execute(async (trx) => {
      const period = periodEndingAt(digest, end);
      const claimed = await claimDigestSend(trx, {
        digestId: digest.id,
        periodStart: period.start,
        periodEnd: end,
        claimedAt: now,
        late,
      });
      if (!claimed) return false;
      const mailId = await enqueueMail(
        trx,
        {
          to: digest.recipients,
          subject: mail.subject,
          html: mail.html,
          text: mail.text,
          kind: 'digest',
          ref: digest.id,
        },
        now,
      );
      if (mailId !== null) await setDigestSendMail(trx, digest.id, end, mailId);
      return true;
    });
    if (queued) sent++;
  }
  return sent;
}

/** When the next digest falls due (for the scheduler's wait), or null with none. */
export async function nextDigestDueAt(deps: DigestDeps): Promise<number | null> {
  const now = deps.clock.now();
  const digests = await listDigests(deps.store.reader);
  return digests.length === 0 ? null : Math.min(...digests.map((d) => nextSendAt(d, now)));
}
