import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure, type Order } from '../../shared/api';
import { useSerial } from '../../shared/serial';
import { loadDone, loadStops } from '../client';
import { type DoneStop, saveDone, savedDone, savedStops, saveStops } from '../storage';
import type { CourierSession } from './useCourierSession';

/**
 * Today's stops, and what the server says was finished today: loaded from the API, kept in
 * localStorage for offline use, the stops moved on by accepted moves.
 */
export function useRouteStops(session: CourierSession) {
  const { client, me, meRef, signedOut } = session;
  const [stops, setStops] = useState<Order[]>(savedStops);
  const [done, setDone] = useState<DoneStop[]>(() => savedDone());
  // Kept for offline use whenever they change (not inside a state updater, which React may call twice).
  useEffect(() => saveStops(stops), [stops]);
  useEffect(() => saveDone(done), [done]);
  // Signed out: nothing of this courier's day stays on screen for the next one.
  const signedIn = !!me;
  useEffect(() => {
    if (signedIn) return;
    setStops([]);
    setDone([]);
  }, [signedIn]);

  // Bumped by every accepted move: a route read that started before it is older than what the
  // phone knows, and is dropped rather than taking a stop back to its previous status.
  const moves = useRef(0);
  const read = useCallback(async () => {
    const m = meRef.current;
    if (!m) return;
    const seen = moves.current;
    try {
      const s = await loadStops(client, m);
      const d = await loadDone(client, m);
      // An older done list is harmless: a stop an accepted move finished counts from `stops` (done.ts).
      setDone(
        d.map((x) => ({
          id: x.order,
          name: x.customer_name,
          address: x.place ?? '',
          status: x.status,
          at: Date.parse(x.finished_at),
        })),
      );
      if (moves.current !== seen) return;
      setStops(s);
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401) signedOut();
    }
  }, [client, meRef, signedOut]);
  // One read at a time: the app's first read and the stream's open each ask for one, and the older
  // answer, arriving last, would put back a route without what was inserted in between.
  const refresh = useSerial(read);

  /** The order an accepted move answered with replaces its stop at once. */
  const moved = useCallback((order: unknown) => {
    const o = order as Order;
    moves.current++;
    // Merged, so the stop numbers read with the route (stop_at, pickup_at) stay.
    setStops((prev) => prev.map((p) => (p.id === o.id ? { ...p, ...o } : p)));
  }, []);

  return { stops, done, refresh, moved };
}
