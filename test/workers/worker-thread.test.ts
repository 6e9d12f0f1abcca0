// The one worker-thread helper (src/worker-thread.ts): a worker file started from the sources (as
// here, through tsx in the thread) is told, asked and ended; its failures reach the caller.
// test/cli/production-start.test.ts runs the compiled workers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startWorker, WorkerAnswerError } from '../../src/worker-thread.ts';
import type { EchoMessage } from '../helpers/echo.worker.ts';

const ECHO = new URL('../helpers/echo.worker.ts', import.meta.url);

describe('a worker thread', () => {
  it('answers asked messages in order, after the told ones, and moves buffers instead of copying them', async (t) => {
    const thread = startWorker<EchoMessage, unknown>(ECHO);
    t.after(() => thread.exit());
    thread.tell({ kind: 'remember', text: 'one' });
    thread.tell({ kind: 'remember', text: 'two' });
    const bytes = new Uint8Array([1, 2, 3]);
    const [recalled, moved] = await Promise.all([
      thread.ask({ kind: 'recall' }),
      thread.ask({ kind: 'bytes', bytes }, [bytes.buffer]),
    ]);
    assert.equal(recalled, 'one two');
    assert.deepEqual(moved, new Uint8Array([2, 3, 4]));
    assert.equal(bytes.byteLength, 0, 'the buffer went to the thread');
  });

  it('awaits an answer that is a promise, keeping the messages after it in their turn', async (t) => {
    const thread = startWorker<EchoMessage, unknown>(ECHO);
    t.after(() => thread.exit());
    const slow = thread.ask({ kind: 'later', text: 'slow:', ms: 100 });
    // Told while the slow answer is pending: handled after it, so the slow one does not see it.
    thread.tell({ kind: 'remember', text: 'after' });
    const failed = thread.ask({ kind: 'fail-later' });
    const recalled = thread.ask({ kind: 'recall' });
    assert.equal(await slow, 'slow: ');
    await assert.rejects(failed, (error) => error instanceof WorkerAnswerError && error.message === 'failed later');
    assert.equal(await recalled, 'after');
  });

  it("reports the handler's error to the one who asked, and goes on", async (t) => {
    const thread = startWorker<EchoMessage, unknown>(ECHO);
    t.after(() => thread.exit());
    await assert.rejects(thread.ask({ kind: 'fail' }), (error) => {
      assert.ok(error instanceof WorkerAnswerError);
      assert.equal(error.message, 'asked to fail');
      return true;
    });
    thread.tell({ kind: 'remember', text: 'still here' });
    assert.equal(await thread.ask({ kind: 'recall' }), 'still here');
    assert.equal(thread.alive, true);
  });

  it('passes worker options on (data, memory limits)', async (t) => {
    const thread = startWorker<EchoMessage, unknown>(ECHO, {
      workerData: { path: '/somewhere' },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
      unref: true,
    });
    t.after(() => thread.exit());
    assert.deepEqual(await thread.ask({ kind: 'options' }), {
      workerData: { path: '/somewhere' },
      maxOldGenerationSizeMb: 64,
    });
  });

  it('rejects what waits and what is asked later when the thread dies, and says so once', async () => {
    const thread = startWorker<EchoMessage, unknown>(ECHO);
    const exits: Error[] = [];
    thread.onExit = (error) => exits.push(error);
    const waiting = thread.ask({ kind: 'recall' });
    thread.tell({ kind: 'die' }); // a throw on a told message ends the thread
    // Watched from the start: the thread may die before the first answer is read.
    const orphan = assert.rejects(thread.ask({ kind: 'recall' }), /told to die/);
    assert.equal(await waiting, '');
    await orphan;
    await assert.rejects(thread.ask({ kind: 'recall' }), /told to die/);
    assert.equal(thread.alive, false);
    assert.equal(exits.length, 1);
    await thread.exit();
  });

  it('ends on exit(): what still waits is rejected, and onExit is not called', async () => {
    const thread = startWorker<EchoMessage, unknown>(ECHO);
    let exited = false;
    thread.onExit = () => (exited = true);
    assert.equal(await thread.ask({ kind: 'recall' }), '');
    const waiting = thread.ask({ kind: 'block', ms: 10_000 });
    const started = Date.now();
    await thread.exit();
    assert.ok(Date.now() - started < 5_000, 'a busy thread is ended, not waited for');
    await assert.rejects(waiting, /ended/);
    assert.equal(thread.alive, false);
    assert.equal(exited, false);
  });
});
