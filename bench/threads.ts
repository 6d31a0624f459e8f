import { readdirSync, readFileSync, statSync } from 'node:fs';

/**
 * Per-thread CPU of a process, from /proc/<pid>/task/<tid>/stat (utime + stime, ms), keyed by
 * tid with the thread's name: what a round's CPU splits into (the main thread, a worker thread
 * such as SQLite's checkpointer, libuv's pool, V8's compiler and GC helpers).
 */
export function threadCpu(pid: number): Map<number, { name: string; ms: number; wchar: number }> {
  const out = new Map<number, { name: string; ms: number; wchar: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      // Bytes the thread passed to write(2)/pwrite(2): the WAL's frames for the writing connection,
      // the database file's pages for the checkpointer's; how each thread is told apart (all are "node").
      const wchar = Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/io`, 'utf8'))?.[1] ?? 0);
      out.set(Number(tid), { name, ms: (Number(fields[11]) + Number(fields[12])) * 10, wchar });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

/** Bytes the process has caused to be written to storage so far (/proc/<pid>/io `write_bytes`). */
export function writeBytes(pid: number): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** A file's size in bytes, 0 if it does not exist. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** CPU ms per thread between two snapshots, grouped: the main thread (tid = pid) and the others by name and tid. */
export function cpuSplit(
  pid: number,
  before: Map<number, { name: string; ms: number; wchar: number }>,
  after: Map<number, { name: string; ms: number; wchar: number }>,
): { main: number; mainWritten: number; others: { name: string; tid: number; ms: number; written: number }[] } {
  let main = 0;
  let mainWritten = 0;
  const others: { name: string; tid: number; ms: number; written: number }[] = [];
  for (const [tid, t] of after) {
    const ms = t.ms - (before.get(tid)?.ms ?? 0);
    const written = t.wchar - (before.get(tid)?.wchar ?? 0);
    if (tid === pid) {
      main = ms;
      mainWritten = written;
    } else if (ms > 0 || written > 0) others.push({ name: t.name, tid, ms, written });
  }
  others.sort((a, b) => b.ms - a.ms);
  return { main, mainWritten, others };
}
