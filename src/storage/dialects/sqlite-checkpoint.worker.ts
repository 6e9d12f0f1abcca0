// The SQLite checkpointer's thread (sqlite-checkpointer.ts starts it): its own connection to the
// database file, on which each message runs one PASSIVE checkpoint.
import { workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { answerMessages } from '../../worker-thread.ts';

export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const db = new BetterSqlite3((workerData as { path: string }).path);
db.pragma('busy_timeout = 5000');

// PASSIVE copies what it can without waiting for readers or the writer.
answerMessages<'checkpoint', CheckpointResult>(() => {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
  if (result === undefined) throw new Error('wal_checkpoint returned nothing');
  return result;
});
