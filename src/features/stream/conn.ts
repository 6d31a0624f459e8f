import type { PassThrough } from 'node:stream';
import type { pino } from 'pino';
import type { Scope } from '../../shared/auth.js';
import type { LiveMessage } from '../../shared/live.js';
import type { StreamEvent } from './repo.js';

/** A client this far behind is cut off; it reconnects with Last-Event-ID and catches up from the table. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** What reaches a stream live while its replay runs; sent after the backlog, in arrival order. */
export type Held = { order: StreamEvent } | { live: LiveMessage['kind']; data: string };

/** One open `/v1/stream` connection. */
export interface Stream {
  scope: Scope;
  key: string;
  out: PassThrough;
  /** The last order event sent (or the position when the stream opened): every message's `id:`. */
  cursor: string;
  /** While replaying: what arrived live meanwhile (`heldMax` entries at most). */
  held?: Held[];
  /** While replaying: the events it has sent, whose live copies are not held. */
  replayed?: Set<string>;
  /** More arrived during the replay than `held` keeps: the replay ends in a reset. */
  overflow?: boolean;
}

/** Why a resumed stream was told to reload instead of being replayed to (docs/stream.md). */
export type ResetReason = 'too_old' | 'too_far_behind';

export function orderFrame(e: StreamEvent): string {
  return `id: ${e.id}\nevent: order\ndata: ${e.payload}\n\n`;
}

/** A live message (`data` serialised once for every stream it goes to), under the stream's position. */
export function liveFrame(s: Stream, kind: LiveMessage['kind'], data: string): string {
  return `id: ${s.cursor}\nevent: ${kind}\ndata: ${data}\n\n`;
}

/** The frame of a message being sent: an order event moves the stream's position (`id:`) to it. */
export function frameOf(s: Stream, h: Held): string {
  if (!('order' in h)) return liveFrame(s, h.live, h.data);
  s.cursor = h.order.id;
  return orderFrame(h.order);
}

export function resetFrame(id: string, reason: ResetReason): string {
  return `id: ${id}\nevent: reset\ndata: ${JSON.stringify({ reason })}\n\n`;
}

export function isOpen(s: Stream): boolean {
  return !s.out.destroyed && !s.out.writableEnded;
}

/** Writes a frame now (live messages, heartbeats), and cuts off a client more than 1 MiB behind. */
export function write(s: Stream, frame: string, logger: pino.Logger): void {
  if (!isOpen(s)) return;
  s.out.write(frame);
  if (s.out.writableLength + s.out.readableLength > MAX_BUFFERED_BYTES) {
    logger.warn({ key: s.key }, 'stream: client too slow; closed so it resumes from the table');
    s.out.destroy();
  }
}

/**
 * Writes a frame and, when the stream's buffer is full, waits until the client has read it (or the
 * stream closes, or the hub stops): a backlog goes at the client's pace instead of piling up in
 * memory. False once nothing more should be written.
 */
export async function paced(s: Stream, frame: string, stop: AbortSignal): Promise<boolean> {
  if (!isOpen(s) || stop.aborted) return false;
  if (s.out.write(frame)) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      s.out.off('drain', done);
      s.out.off('close', done);
      stop.removeEventListener('abort', done);
      resolve();
    };
    s.out.on('drain', done);
    s.out.on('close', done);
    stop.addEventListener('abort', done);
  });
  return isOpen(s) && !stop.aborted;
}
