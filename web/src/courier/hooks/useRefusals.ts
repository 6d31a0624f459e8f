import { useEffect, useMemo, useRef } from 'react';
import type { Order } from '../../shared/api';
import { addToBurst, noBurst } from '../burst';
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
export function useRefusals(
  failed: Failure[],
  stops: Order[],
  done: DoneStop[],
  /** Moves still in the outbox: while some wait, the sync that listed these is not over (burst.ts). */
  waiting: number,
  on: { dismiss: (seq: number) => void; note: (text: string) => void },
): Explained[] {
  const explained = useMemo(() => failed.map((f) => explain(f, stops, done)), [failed, stops, done]);
  const seen = useRef(new Set<number>());
  // The already-done moves of one sync, which the outbox may list in more than one go: one note
  // names them all, rather than the last go's only. `waiting` is read with the list it came with
  // (one refresh sets both), not as a dependency: a change of it alone lists nothing new.
  const burst = useRef(noBurst<Explained>());
  const waitingNow = useRef(waiting);
  waitingNow.current = waiting;
  const { dismiss, note } = on;
  useEffect(() => {
    const already = explained.filter((e) => e.already);
    const fresh = explained.filter((e) => !e.already && !seen.current.has(e.failure.seq));
    for (const e of fresh) seen.current.add(e.failure.seq);
    if (fresh.length > 0) {
      burst.current = noBurst();
      note('');
    }
    if (already.length === 0) return;
    const next = addToBurst(burst.current, already, waitingNow.current);
    if (next !== burst.current) note(alreadyNote(next.list));
    burst.current = next;
    for (const e of already) dismiss(e.failure.seq);
  }, [explained, dismiss, note]);
  return explained.filter((e) => !e.already);
}
