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
export function useRefusals(
  failed: Failure[],
  stops: Order[],
  done: DoneStop[],
  on: { dismiss: (seq: number) => void; note: (text: string) => void },
): Explained[] {
  const explained = useMemo(() => failed.map((f) => explain(f, stops, done)), [failed, stops, done]);
  const seen = useRef(new Set<number>());
  const { dismiss, note } = on;
  useEffect(() => {
    const already = explained.filter((e) => e.already);
    const fresh = explained.filter((e) => !e.already && !seen.current.has(e.failure.seq));
    for (const e of fresh) seen.current.add(e.failure.seq);
    if (fresh.length > 0) note('');
    if (already.length === 0) return;
    note(alreadyNote(already));
    for (const e of already) dismiss(e.failure.seq);
  }, [explained, dismiss, note]);
  return explained.filter((e) => !e.already);
}
