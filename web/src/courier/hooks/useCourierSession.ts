import { useCallback, useMemo, useRef, useState } from 'react';
import { ApiFailure, unwrap } from '../../shared/api';
import { type CourierMe, courierClient, locationTransport } from '../client';
import { clearPoints, sendPoints } from '../points';
import { savedMe, saveMe } from '../storage';

/**
 * Who is signed in on this phone, and the API client that speaks for them. The courier is kept in
 * localStorage so the app opens offline; the session itself is the ruta_courier_session cookie.
 */
export function useCourierSession() {
  const [me, setMe] = useState<CourierMe | null>(savedMe);
  // Read by the client on every request, and by callbacks that must not change with `me`.
  const meRef = useRef(me);
  meRef.current = me;
  const client = useMemo(() => courierClient(() => meRef.current), []);

  const remember = useCallback((m: CourierMe | null) => {
    saveMe(m);
    meRef.current = m;
    setMe(m);
  }, []);

  /** The session ended on the server (401): back to sign-in. */
  const signedOut = useCallback(() => remember(null), [remember]);

  /** Throws ApiFailure when the server refuses the code, a TypeError when there is no network. */
  const signIn = useCallback(
    async (code: string) => {
      const session = await unwrap(client.POST('/v1/courier_session', { body: { code } }));
      remember(session);
    },
    [client, remember],
  );

  /** Asks the server whether the session still holds (it may have been revoked); offline, it is assumed to. */
  const confirm = useCallback(async (): Promise<boolean> => {
    const m = meRef.current;
    if (!m) return false;
    try {
      const fresh = await unwrap(client.GET('/v1/courier_session'));
      remember({ ...m, ...fresh, csrf_token: fresh.csrf_token ?? m.csrf_token });
    } catch (e) {
      if (e instanceof ApiFailure && e.status === 401) {
        signedOut();
        return false;
      }
    }
    return true;
  }, [client, remember, signedOut]);

  const signOut = useCallback(async () => {
    const m = meRef.current;
    // The points not yet confirmed go now if they can (nothing sends them once signed out), but a
    // network that hangs does not hold the sign-out up for long.
    if (m) await Promise.race([sendPoints(locationTransport(client), m.courier.id), wait(3000)]);
    try {
      await client.DELETE('/v1/courier_session');
    } catch {}
    await clearPoints().catch(() => {});
    signedOut();
  }, [client, signedOut]);

  return { me, meRef, client, signIn, signOut, signedOut, confirm };
}

export type CourierSession = ReturnType<typeof useCourierSession>;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
