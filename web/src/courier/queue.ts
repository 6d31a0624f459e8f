/**
 * The outbox of the phone: every action the courier takes is written here first (IndexedDB, so it
 * survives a reload, a crash or a dead battery) and sent in order when the network allows. Each
 * entry carries its own Idempotency-Key, fixed when it was queued: a send that timed out and is
 * sent again gets the server's first answer back, so a move is never applied twice.
 */
import { openDb, tx } from './idb';

export interface FileEntry {
  seq?: number;
  kind: 'file';
  /** A local name that moves queued after it use in place of the server's file id. */
  localId: string;
  purpose: 'signature' | 'photo';
  blob: Blob;
  idempotencyKey: string;
  orderId: string;
  queuedAt: number;
}

export interface MoveEntry {
  seq?: number;
  kind: 'move';
  orderId: string;
  action: string;
  /** Values `{"$file": localId}` are replaced by the uploaded file's id before sending. */
  body: Record<string, unknown>;
  idempotencyKey: string;
  queuedAt: number;
  /** The status this move leads to, shown on the phone before the server has it. */
  to: string;
  /**
   * A move made of several (Start route: pickup then depart): sent in order as one entry, each
   * step with its own key derived from the entry's, so a replay after a cut repeats none of them.
   */
  steps?: string[];
  /** The stop's customer, to name it if the server refuses the move (a refused order may be gone from the list). */
  customer?: string;
}

export type Entry = FileEntry | MoveEntry;

export interface Failure {
  seq: number;
  orderId: string;
  what: string;
  message: string;
  /** The Error body's code (`pin_mismatch`, `pin_locked`…): what the phone says about it. */
  code?: string;
  /** The HTTP status of the refusal (`refusals.ts` tells an order already moved on from a real refusal). */
  status?: number;
  /** A refused move's: the status it led to, and the stop's customer when it was queued. */
  to?: string;
  customer?: string;
}

export async function enqueue(entries: Entry[]): Promise<void> {
  // One transaction: the files and the move that names them are queued together or not at all.
  const db = await openDb();
  await new Promise<void>((resolve, reject) => {
    const t = db.transaction('queue', 'readwrite');
    for (const e of entries) t.objectStore('queue').add(e);
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
  });
  db.close();
}

export const pending = (): Promise<Entry[]> => tx('queue', 'readonly', (s) => s.getAll() as IDBRequest<Entry[]>);
export const failures = (): Promise<Failure[]> => tx('failed', 'readonly', (s) => s.getAll() as IDBRequest<Failure[]>);
export const clearFailure = (seq: number) => tx('failed', 'readwrite', (s) => s.delete(seq));
const remove = (seq: number) => tx('queue', 'readwrite', (s) => s.delete(seq));
const fileId = (localId: string) => tx('files', 'readonly', (s) => s.get(localId) as IDBRequest<string | undefined>);
const saveFileId = (localId: string, id: string) => tx('files', 'readwrite', (s) => s.put(id, localId));

/** An answer of the API: its HTTP status and JSON body (the Error body on a refusal). */
export interface Answer {
  status: number;
  json: unknown;
}

/** How the outbox reaches the API (client.ts); each call throws when the network fails. */
export interface Transport {
  upload(e: FileEntry): Promise<Answer>;
  move(e: MoveEntry, body: Record<string, unknown>): Promise<Answer>;
}

async function resolveFiles(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v && typeof v === 'object' && '$file' in v) out[k] = await fileId((v as { $file: string }).$file);
    else if (Array.isArray(v))
      out[k] = await Promise.all(
        v.map((x) => (x && typeof x === 'object' && '$file' in x ? fileId((x as { $file: string }).$file) : x)),
      );
    else out[k] = v;
  }
  return out;
}

/**
 * Sends what is queued, oldest first, and stops at the first entry that may succeed later (no
 * network, 5xx, 429): later moves of the same order must not overtake it. A refusal that will not
 * change on retry (4xx) is set aside with its message for the courier to see, and sending goes on.
 * `onMoved` gets the order each accepted move answers with: the phone shows the server's word at
 * once, even if the network drops before the route can be reloaded.
 */
export async function flush(
  send: Transport,
  onMoved: (order: unknown) => void = () => {},
): Promise<{ sent: number; blocked: boolean }> {
  let sent = 0;
  for (const e of await pending()) {
    const seq = e.seq!;
    let res: Answer;
    try {
      res = e.kind === 'file' ? await send.upload(e) : await sendMove(send, e);
    } catch {
      return { sent, blocked: true };
    }
    if (res.status >= 500 || res.status === 429 || res.status === 401 || (res.status === 409 && isInFlight(res.json))) {
      return { sent, blocked: true };
    }
    if (res.status >= 200 && res.status < 300) {
      if (e.kind === 'file') await saveFileId(e.localId, (res.json as { id: string }).id);
      else onMoved(res.json);
    } else {
      const error = (res.json as { error?: { message?: string; code?: string } } | null)?.error;
      const message = error?.message ?? `HTTP ${res.status}`;
      await tx('failed', 'readwrite', (s) =>
        s.put({
          seq,
          orderId: e.orderId,
          what: e.kind === 'file' ? `${e.purpose} upload` : e.steps ? 'start route' : e.action,
          message,
          code: error?.code,
          status: res.status,
          ...(e.kind === 'move' ? { to: e.to, customer: e.customer } : {}),
        } satisfies Failure),
      );
    }
    await remove(seq);
    sent++;
  }
  return { sent, blocked: false };
}

/** A move, or each step of a multi-step one until the first that is not accepted. */
async function sendMove(send: Transport, e: MoveEntry): Promise<Answer> {
  const body = await resolveFiles(e.body);
  if (!e.steps) return send.move(e, body);
  let res: Answer = { status: 204, json: null };
  for (const action of e.steps) {
    res = await send.move({ ...e, action, idempotencyKey: `${e.idempotencyKey}:${action}` }, body);
    if (res.status < 200 || res.status >= 300) return res;
  }
  return res;
}

/** 409 idempotency_key_in_use: the first send is still being handled; try again later. */
function isInFlight(json: unknown): boolean {
  return (json as { error?: { code?: string } } | null)?.error?.code === 'idempotency_key_in_use';
}
