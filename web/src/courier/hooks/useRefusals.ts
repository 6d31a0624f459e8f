import { useEffect, useMemo, useRef } from 'react';
import type { Order } from '../../shared/api';
import type { Failure } from '../queue';
import { alreadyNote, type Explained, explain } from '../refusals';
import type { DoneStop } from '../storage';

/**
 * The outbox's refusals as the courier should see them (refusals.ts), read against the route as
 * last loaded (the outbox reloads it after every send, before it lists what was refused). A move
 * that another phone or dispatch had already made is no error: it leaves the outbox's list and
 * becomes a quiet note (`onNote`). A real refusal stays until dismissed, and the note of the
 * action it refused ("Deliver saved") goes, so the two never stand side by side.
 */
/** Already-done moves listed within this long of each other are one sync's, named in one note. */
const BURST_MS = 10_000;

export function useRefusals(
  failed: Failure[],
  stops: Order[],
  done: DoneStop[],
  on: { dismiss: (seq: number) => void; note: (text: string) => void },
): Explained[] {
  const explained = useMemo(() => failed.map((f) => explain(f, stops, done)), [failed, stops, done]);
  const seen = useRef(new Set<number>());
  // The already-done moves of one sync, which the outbox may list in more than one go (a send, a
  // reload of the route, the next send): one note names them all, rather than the last go's only.
  const burst = useRef<{ at: number; list: Explained[] }>({ at: 0, list: [] });
  const { dismiss, note } = on;
  useEffect(() => {
    const already = explained.filter((e) => e.already);
    const fresh = explained.filter((e) => !e.already && !seen.current.has(e.failure.seq));
    for (const e of fresh) seen.current.add(e.failure.seq);
    if (fresh.length > 0) {
      burst.current = { at: 0, list: [] };
      note('');
    }
    if (already.length === 0) return;
    const now = Date.now();
    const earlier = now - burst.current.at < BURST_MS ? burst.current.list : [];
    const ids = new Set(already.map((e) => e.failure.orderId));
    const list = [...earlier.filter((e) => !ids.has(e.failure.orderId)), ...already];
    burst.current = { at: now, list };
    note(alreadyNote(list));
    for (const e of already) dismiss(e.failure.seq);
  }, [explained, dismiss, note]);
  return explained.filter((e) => !e.already);
}
