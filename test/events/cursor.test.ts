// Polling by cursor under concurrent writers: transactions that commit out of the order in which
// they started writing must not make a poller skip or repeat an event (PostgreSQL: several
// connections and processes write at once; SQLite has one writer, so it holds trivially).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import { listEvents } from '../../src/storage/events-list.ts';
import { recordEvents } from '../../src/storage/events-repo.ts';
import { dialectName, freshStores } from '../helpers/store-url.ts';

const WRITERS = 3;
const TRANSACTIONS = 25;

test('a poller sees every event once, in order, while writers commit in any order', async (t) => {
  // SQLite is one process with one writer connection: the writers share it there.
  const stores = await freshStores(t, dialectName === 'postgres' ? WRITERS + 1 : 1);
  const poller = stores.at(-1)!;
  let done = false;
  const written: string[] = [];
  const writer = async (index: number) => {
    const store = stores[index % stores.length]!;
    for (let i = 0; i < TRANSACTIONS; i++) {
      await store.db.transaction().execute(async (trx) => {
        const stored = await recordEvents(
          trx,
          store.caps,
          [{ type: 'import.completed', accountId: null, account: null, data: { writer: index, i } }],
          Date.now(),
        );
        // Hold the transaction open a while after its insert: a later insert by another writer
        // could commit first if event writers did not take turns.
        await sql`select 1`.execute(trx);
        await delay(index * 3 + (i % 4));
        written.push(...stored.map((e) => e.id));
      });
    }
  };
  const seen: string[] = [];
  const seqs: number[] = [];
  const poll = async () => {
    let after = 0;
    for (;;) {
      const finished = done;
      const page = await listEvents(poller.reader, poller.caps, { after, limit: 7 });
      for (const event of page) {
        seen.push(event.id);
        seqs.push(event.seq);
      }
      after = page.at(-1)?.seq ?? after;
      if (finished && page.length === 0) return;
      if (page.length === 0) await delay(1);
    }
  };
  const polling = poll();
  await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
  done = true;
  await polling;
  assert.equal(written.length, WRITERS * TRANSACTIONS);
  assert.equal(new Set(seen).size, seen.length, 'no event twice');
  assert.deepEqual([...seen].sort(), [...written].sort(), 'every event, none skipped');
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'oldest first',
  );
});
