import { useCallback, useState } from 'react';
import { ApiFailure, type Schemas, unwrap } from '../../shared/api';
import { type SavedCash, saveCash, savedCash } from '../storage';
import type { CourierSession } from './useCourierSession';

export type CourierCash = Schemas['CourierCash'];

/**
 * The courier's own cash (GET /v1/couriers/{id}/cash): kept with the time it was read, so that
 * offline the phone shows the last known figures and says how old they are, never a guess.
 */
export function useCash(session: CourierSession) {
  const { client, meRef, signedOut } = session;
  const [cash, setCash] = useState<SavedCash | null>(savedCash);
  // Whether the figures shown are the server's answer of this session (else: the last known ones).
  const [fresh, setFresh] = useState(false);
  const refresh = useCallback(async () => {
    const m = meRef.current;
    if (!m) return;
    try {
      const data = await unwrap(
        client.GET('/v1/couriers/{id}/cash', { params: { path: { id: m.courier.id }, query: {} } }),
      );
      const saved = { data, at: Date.now() };
      saveCash(saved);
      setCash(saved);
      setFresh(true);
    } catch (e) {
      setFresh(false);
      if (e instanceof ApiFailure && e.status === 401) signedOut();
    }
  }, [client, meRef, signedOut]);
  return { cash, fresh, refresh };
}
