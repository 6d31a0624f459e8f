import { parentPort, workerData } from 'node:worker_threads';
import { loadSqlite } from './sqlite-driver.js';

// The WAL checkpointer's thread (checkpointer.ts): its own connection to the database file, and a
// PASSIVE checkpoint every `intervalMs`. Passive never waits for the writer or readers, so it never
// holds up the main thread's connection; the checkpoint's fsyncs block this thread only.

export interface CheckpointerInput {
  file: string;
  intervalMs: number;
}

/** What `PRAGMA wal_checkpoint` answers: frames in the WAL, and how many of them are in the database file. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort;
if (port) {
  const { file, intervalMs } = workerData as CheckpointerInput;
  const db = new (loadSqlite())(file);
  const run = (asked: boolean) => {
    // Again while the writer appended meanwhile (a few rounds at most): the WAL starts over only at a
    // commit that finds every frame copied, and otherwise grows until the writer's own backstop.
    let result: CheckpointResult | undefined;
    for (let round = 0; round < 4; round++) {
      [result] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
      if (!result || result.checkpointed >= result.log) break;
    }
    // Unasked, only when there was something to copy: an idle server's thread stays quiet.
    if (result && (asked || result.log > 0)) port.postMessage(result);
  };
  const timer = setInterval(() => run(false), intervalMs);
  port.on('message', (m: unknown) => {
    if (m === 'now') return run(true);
    if (m !== 'stop') return;
    clearInterval(timer);
    db.close();
    port.close();
  });
}
