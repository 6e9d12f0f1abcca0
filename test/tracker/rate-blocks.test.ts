// Rate-window tokens taken in blocks (limits/token-pool.ts) on a real store: a busy gate writes the
// window once per block, gates on separate connections together still take exactly what the
// window has, what a gate holds goes back when it is idle, an answer that changes nothing writes
// nothing, and a 429 or the passing of POOL_MS ends what is held.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateGate, type Ticket } from '../../src/limits/rate-gate.ts';
import { MAX_BLOCK, POOL_MS } from '../../src/limits/token-pool.ts';
import type { Store } from '../../src/storage/store.ts';
import { freshStores } from '../helpers/store-url.ts';
import { VirtualClock } from '../helpers/tracker.ts';

const KEY = 'x:timeline:blocks';

async function remaining(store: Store): Promise<number | null> {
  const row = await store.db
    .selectFrom('rate_windows')
    .select('remaining')
    .where('window_key', '=', KEY)
    .executeTakeFirstOrThrow();
  return row.remaining === null ? null : Number(row.remaining);
}

/** A gate whose window is known: `left` requests until a reset a minute ahead. */
async function openGate(store: Store, clock: VirtualClock, left: number): Promise<RateGate> {
  const gate = new RateGate(store.db, KEY, clock);
  const probe = await gate.tryAcquire();
  assert.equal(probe?.kind, 'probe');
  await gate.settle(probe!, { limit: left + 1, remaining: left, resetAt: clock.now() + 60_000 });
  return gate;
}

test('a busy gate takes a block at once, sends from it without writing, and gives back the rest when idle', async (t) => {
  const [store] = await freshStores(t);
  const clock = new VirtualClock();
  const gate = await openGate(store!, clock, 1_000);
  const tickets: Ticket[] = [];
  for (let i = 0; i < MAX_BLOCK; i++) tickets.push((await gate.tryAcquire())!);
  assert.ok(tickets.every((ticket) => ticket.kind === 'token'));
  assert.equal(await remaining(store!), 1_000 - MAX_BLOCK, 'one block of the most a take removes, one write');
  // Answers that say no less than the store already holds change nothing.
  for (const [i, ticket] of tickets.slice(0, 10).entries())
    await gate.settle(ticket, { limit: 1_001, remaining: 999 - i, resetAt: clock.now() + 60_000 });
  assert.equal(await remaining(store!), 1_000 - MAX_BLOCK, 'no write for an answer that lowers nothing');
  for (const ticket of tickets.slice(10)) await gate.cancel(ticket);
  await gate.drain();
  assert.equal(await remaining(store!), 1_000 - 10, 'idle: what was held and never sent is back for everyone');
});

test('an answer saying less than the store holds lowers it, less what the gate still holds', async (t) => {
  const [store] = await freshStores(t);
  const clock = new VirtualClock();
  const gate = await openGate(store!, clock, 1_000);
  const ticket = (await gate.tryAcquire())!; // a block of 32: 968 in the store, 31 held
  const out = (await gate.tryAcquire())!; // 30 held
  assert.equal(await remaining(store!), 1_000 - MAX_BLOCK);
  // Someone else on the credential used 500: the platform says 499 left after ours.
  await gate.settle(ticket, { limit: 1_001, remaining: 499, resetAt: clock.now() + 60_000 });
  assert.equal(await remaining(store!), 499 - (MAX_BLOCK - 2), 'what is held here is not counted twice');
  await gate.cancel(out);
  await gate.drain();
  // As with single tokens, the answer is taken as counting the requests still out (here one never sent).
  assert.equal(await remaining(store!), 500, 'idle: the held 30 and the unsent one are back');
});

test('gates on separate connections taking blocks never take more than the window has, and lose nothing', async (t) => {
  const stores = await freshStores(t, 4);
  const clock = new VirtualClock();
  await openGate(stores[0]!, clock, 300);
  const all = stores.map((s) => new RateGate(s.db, KEY, clock));
  // Every process asks far more often than the window allows, at once.
  const asked = all.flatMap((gate) => Array.from({ length: 150 }, () => ({ gate, ticket: gate.tryAcquire() })));
  const taken = await Promise.all(asked.map(async ({ gate, ticket }) => ({ gate, ticket: await ticket })));
  const sent = taken.filter((t) => t.ticket !== null);
  // A gate that asked for its last request may still hold part of a block, so at most the window goes out.
  assert.ok(sent.length <= 300 && sent.length >= 300 - all.length * MAX_BLOCK, `${sent.length} handed out`);
  assert.equal(await remaining(stores[0]!), 0);
  // Nothing lost, nothing made up: once every request is given back unsent, the window is whole again.
  for (const { gate, ticket } of sent) await gate.cancel(ticket!);
  await Promise.all(all.map((gate) => gate.drain()));
  assert.equal(await remaining(stores[0]!), 300);
});

test('a 429 ends what is held', async (t) => {
  const [store] = await freshStores(t);
  const clock = new VirtualClock();
  const gate = await openGate(store!, clock, 1_000);
  const blocked = (await gate.tryAcquire())!;
  const other = (await gate.tryAcquire())!;
  await gate.settle(blocked, null, clock.now() + 5_000);
  assert.equal(await gate.tryAcquire(), null, 'nothing held back goes after a 429');
  await gate.cancel(other);
  clock.advance(6_000);
  assert.equal((await gate.tryAcquire())?.kind, 'token', 'the retry time passed');
});

test('tokens held past POOL_MS go back before a new take', async (t) => {
  const [store] = await freshStores(t);
  const clock = new VirtualClock();
  const gate = await openGate(store!, clock, 1_000);
  await gate.tryAcquire();
  assert.equal(await remaining(store!), 1_000 - MAX_BLOCK);
  clock.advance(POOL_MS);
  assert.equal((await gate.tryAcquire())?.kind, 'token');
  assert.equal(await remaining(store!), 1_000 - 2, 'the 31 held went back; the new take is a single one');
});
