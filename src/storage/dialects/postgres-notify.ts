// PostgreSQL's LISTEN/NOTIFY for the tracker: the trigger that announces accounts becoming due,
// and a listening connection that survives connection loss.
import pg from 'pg';
import { sql } from 'kysely';
import type { DueNotifications } from './capabilities.ts';

/**
 * Trackers wake each other through LISTEN/NOTIFY. A trigger notifies when accounts become
 * claimable: rows inserted (an import), a due time moved earlier (a refresh, a reactivation), or a
 * lease given back without a check (a stopping tracker, a refresh kept during a check). A tracker's
 * own results move the due time later and stay silent. NOTIFY is sent at commit, and repeats within
 * one transaction are sent once. The channel is named after the schema, so test schemas (or
 * deployments) sharing one server do not wake each other.
 */
export const dueNotifications: DueNotifications = {
  install: async (db) => {
    await sql`create or replace function perch_accounts_due() returns trigger language plpgsql as $$
      begin
        perform pg_notify('perch_due_' || left(md5(current_schema()), 16), '');
        return null;
      end $$`.execute(db);
    await sql`create trigger accounts_inserted_due after insert on accounts for each statement execute function perch_accounts_due()`.execute(
      db,
    );
    await sql`create trigger accounts_made_due after update of next_check_at, lease_expires_at on accounts for each row
      when (new.next_check_at < old.next_check_at or (new.lease_expires_at is null and old.lease_expires_at is not null and new.next_check_at <= old.next_check_at))
      execute function perch_accounts_due()`.execute(db);
  },
  channel: async (db) =>
    (await sql<{ channel: string }>`select 'perch_due_' || left(md5(current_schema()), 16) as channel`.execute(db))
      .rows[0]?.channel ?? 'perch_due',
};

/** How long a lost listening connection waits before it connects again (doubling, capped). */
const RELISTEN_FIRST_MS = 500;
const RELISTEN_MAX_MS = 30_000;

export interface ChannelListener {
  close(): Promise<void>;
}

/**
 * Listens on `channel` over a connection of its own (LISTEN holds its session, so it cannot be a
 * pool's). A lost connection is replaced with backoff; after each (re)connect `onNotify` runs once,
 * since a notification may have been missed meanwhile. `onError` hears every failure; none throws.
 */
export function listenOnChannel(
  connectionString: string,
  channel: string,
  onNotify: () => void,
  onError: (error: unknown) => void,
): ChannelListener {
  let closed = false;
  let client: pg.Client | null = null;
  let retryMs = RELISTEN_FIRST_MS;
  let timer: NodeJS.Timeout | null = null;
  const connect = async () => {
    timer = null;
    if (closed) return;
    const next = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
    client = next;
    // A connection error must never reach the process as an unhandled 'error' event.
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, null));
    next.on('notification', () => onNotify());
    try {
      await next.connect();
      await next.query(`listen "${channel.replaceAll('"', '""')}"`);
      retryMs = RELISTEN_FIRST_MS;
      onNotify();
    } catch (error) {
      lost(next, error);
    }
  };
  const lost = (which: pg.Client, error: unknown) => {
    if (client !== which) return;
    client = null;
    which.removeAllListeners('notification');
    void which.end().catch(() => {});
    if (closed) return;
    if (error) onError(error);
    timer = setTimeout(() => void connect(), retryMs);
    timer.unref();
    retryMs = Math.min(RELISTEN_MAX_MS, retryMs * 2);
  };
  void connect();
  return {
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = null;
      if (current) {
        // Errors on the way out are of no interest; keep a listener so none is unhandled.
        current.removeAllListeners('end');
        await current.end().catch(() => {});
      }
    },
  };
}
