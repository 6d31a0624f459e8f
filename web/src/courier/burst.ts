/**
 * The already-done moves of one sync, named in one note (useRefusals). The outbox may list them
 * in more than one go: a send stopped part-way (the network came back slowly, a 5xx) leaves the
 * rest for the next send, 15 s or an hour later. A burst stays open while the outbox still holds
 * moves after a go, and closes when it is empty: the next go is then a new sync of new moves. Tied
 * to the outbox, not the clock, so a slow network or a loaded phone does not split the note.
 */
export interface Burst<T> {
  list: T[];
  /** Whether moves still waited to be sent when `list` was last added to. */
  open: boolean;
}

export const noBurst = <T>(): Burst<T> => ({ list: [], open: false });

/**
 * `already` (this go's done moves) added to `prev` if its sync is still going, each order once.
 * `prev` itself when every move is in it already: the list read again while the moves it named are
 * being cleared, one by one, which says nothing new.
 */
export function addToBurst<T extends { failure: { seq: number; orderId: string } }>(
  prev: Burst<T>,
  already: T[],
  waiting: number,
): Burst<T> {
  const named = new Set(prev.list.map((e) => e.failure.seq));
  if (already.every((e) => named.has(e.failure.seq))) return prev;
  const ids = new Set(already.map((e) => e.failure.orderId));
  const earlier = prev.open ? prev.list.filter((e) => !ids.has(e.failure.orderId)) : [];
  return { list: [...earlier, ...already], open: waiting > 0 };
}
