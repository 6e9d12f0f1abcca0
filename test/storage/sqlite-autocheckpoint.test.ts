// A SQLite store's checkpoints run on the checkpointer's thread; once that thread has ended,
// SQLite's own checkpoint at COMMIT takes over (storage/dialects/sqlite.ts), also on the
// connection a thread opens to the store's file (a large import's write thread).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { sql } from 'kysely';
import { openSqlite, openSqliteWriter } from '../../src/storage/dialects/sqlite.ts';

it("a thread's own connection checkpoints at COMMIT once the checkpointer's thread has ended", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'perch-autocheckpoint-'));
  const dir = join(root, 'store');
  const path = join(dir, 'perch.db');
  const handles = openSqlite(path);
  t.after(async () => {
    await handles.close();
    rmSync(root, { recursive: true, force: true });
  });
  await sql`create table big (x blob)`.execute(handles.writer);
  assert.equal(handles.file?.walAutocheckpoint, 0, 'the checkpointer checkpoints');

  // The checkpointer's thread opens the file by its path when it starts: where the path names a
  // folder, it cannot, and the thread ends.
  renameSync(dir, `${dir}-moved`);
  mkdirSync(path, { recursive: true });
  assert.equal(await handles.checkpoint(), null);
  rmdirSync(path);
  rmdirSync(dir);
  renameSync(`${dir}-moved`, dir);
  const file = handles.file;
  assert.ok(file);
  assert.equal(file.walAutocheckpoint, 1000);

  const writer = openSqliteWriter(structuredClone(file));
  t.after(() => writer.destroy());
  const before = statSync(path).size;
  // About 3,000 pages: past 1,000 in the log, the COMMIT copies them into the database file.
  await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000)
    insert into big select randomblob(4000) from n`.execute(writer);
  assert.ok(statSync(path).size > before + 8_000_000, `checkpointed: ${before} -> ${statSync(path).size} bytes`);
});
