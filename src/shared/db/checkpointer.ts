import type { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { startWorker } from '../worker-thread.js';
import type { CheckpointerInput, CheckpointResult } from './checkpoint-worker.js';

/** SQLite's default: the writing connection checkpoints once the WAL holds this many pages. */
const INLINE_PAGES = 1000;
/**
 * While the thread runs, the writing connection checkpoints only past this (40 MB of 4 KB pages): a
 * backstop for a thread that cannot keep up (a long reader holds back what it may copy).
 */
const BACKSTOP_PAGES = 10_000;
/** How often the thread checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 200;

/**
 * WAL checkpoints on a thread of their own, for the server and the worker (BENCHMARKS.md, "SQLite's
 * checkpoints off the event loop"). With SQLite's default, the connection that commits past 1 000 WAL
 * pages copies them into the database file and fsyncs both files, inside that commit: on the event
 * loop, every third of a second under the create load, 10–35 ms each on this machine's disk (more on a
 * cloud volume), while every request waits. Here a second connection does a PASSIVE checkpoint every
 * 200 ms on a worker thread: passive never blocks the writer, which keeps appending meanwhile, and
 * once everything is copied the writer's next commit starts the WAL over, so it stays small.
 *
 * If the thread fails, the writing connection takes checkpoints back (SQLite's default) and
 * `onError` is told; nothing is lost either way, since checkpoints only move committed pages.
 */
export class WalCheckpointer {
  private worker: Worker | undefined;
  private waiting: { resolve: (r: CheckpointResult) => void; reject: (err: unknown) => void }[] = [];

  constructor(
    private readonly sqlite: SQLite.Database,
    file: string,
    private readonly onError: (err: unknown) => void,
    intervalMs = CHECKPOINT_INTERVAL_MS,
  ) {
    const input: CheckpointerInput = { file, intervalMs };
    const worker = startWorker(import.meta.url, 'checkpoint-worker', {
      workerData: input,
      // The thread allocates next to nothing; small heaps keep its share of the server's memory small.
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // A process that is otherwise done may exit; stop() is for an orderly close.
    worker.unref();
    worker.on('message', (r: CheckpointResult) => {
      for (const w of this.waiting.splice(0)) w.resolve(r);
    });
    worker.on('error', (err) => this.inline(err));
    worker.on('exit', (code) => this.inline(new Error(`the checkpoint thread exited (code ${code})`)));
    sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.worker = worker;
  }

  /** A checkpoint now, on the thread; resolves with SQLite's answer (tests, operations). */
  checkpoint(): Promise<CheckpointResult> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new Error('the checkpoint thread is not running'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      worker.postMessage('now');
    });
  }

  get running(): boolean {
    return this.worker !== undefined;
  }

  /** Ends the thread (before the writing connection closes, so that one is the last and tidies the WAL). */
  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    for (const w of this.waiting.splice(0)) w.reject(new Error('the checkpoint thread was stopped'));
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    // Unref'd, the thread's exit is nothing Node waits for: a process with nothing else left to do
    // (a `ruta serve` that could not listen, closing before it exits 1) would end here, with code 0,
    // before the database closes and before its error is printed.
    worker.ref();
    worker.postMessage('stop');
    await exited;
  }

  private inline(err: unknown): void {
    if (!this.worker) return;
    this.worker = undefined;
    for (const w of this.waiting.splice(0)) w.reject(err);
    this.sqlite.pragma(`wal_autocheckpoint = ${INLINE_PAGES}`);
    this.onError(err);
  }
}
