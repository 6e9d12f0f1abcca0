// A part of a transaction that may fail alone: its writes are undone and the error handed back,
// while the rest of the transaction goes on (PostgreSQL would otherwise refuse every later
// statement of a transaction with a failed one). Both dialects speak the same SQL here.
import { sql } from 'kysely';
import type { Executor } from './store.ts';

let counter = 0;

/** Runs `step` inside a savepoint of `trx`; on a throw, rolls back to it and rethrows. */
export async function withSavepoint<T>(trx: Executor, step: () => Promise<T>): Promise<T> {
  counter = (counter + 1) % 1_000_000;
  const name = sql.raw(`perch_step_${counter}`);
  await sql`savepoint ${name}`.execute(trx);
  try {
    const result = await step();
    await sql`release savepoint ${name}`.execute(trx);
    return result;
  } catch (error) {
    await sql`rollback to savepoint ${name}`.execute(trx);
    await sql`release savepoint ${name}`.execute(trx);
    throw error;
  }
}
