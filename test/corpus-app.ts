// The app the route tables of corpus-table.ts run against, shared by the bad-input corpus and the
// unknown-query walk: the same set-up and the same caller for each row.

import type { Engine } from '../src/shared/db/index.js';
import { type Endpoint, type Fixture, makeFixture } from './corpus-table.js';
import { startLocalGeocoder } from './geocoder-server.js';
import { client, type Merchant, newMerchant, startApp, type TestApp } from './helpers.js';
import { makePeopleFixture, sessionClient } from './people-helpers.js';

export interface CorpusApp {
  t: TestApp;
  m: Merchant;
  /** The full fixture, with its people. */
  f: Fixture;
  /** The fixture `fx` with people of its own (admin, dispatcher, courier sessions). */
  withPeople(fx: Fixture): Promise<Fixture>;
  close(): Promise<void>;
}

/**
 * Insecure webhooks: the fixture's endpoint is a loopback URL (nothing is sent: no dispatcher runs
 * here). No rate limits: thousands of calls with one key within a minute (limits are tested in
 * rate-limit.test.ts). A local geocoder, so the address search's well-formed call has one to ask
 * (test/geocoding.test.ts).
 */
export async function startCorpusApp(engine: Engine): Promise<CorpusApp> {
  const geo = await startLocalGeocoder([
    { match: 'Av. Larco 345', lat: -12.1245, lng: -77.0301, rank: 30, name: 'Av. Larco 345' },
  ]);
  const t = await startApp(engine, {
    RUTA_GEOCODER_URL: geo.url,
    RUTA_WEBHOOK_ALLOW_INSECURE: '1',
    RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0',
    RUTA_RATE_LIMIT_PER_MIN: '0',
  });
  const m = await newMerchant(t);
  const withPeople = async (fx: Fixture): Promise<Fixture> => ({
    ...fx,
    people: await makePeopleFixture(t, m.accountId, fx.courier.id),
  });
  return {
    t,
    m,
    f: await withPeople(await makeFixture(t, m.test)),
    withPeople,
    close: async () => {
      await t.close();
      await geo.close();
    },
  };
}

/** The caller a row names: the merchant's test key, an admin's or a courier's session, or nobody. */
export function callerOf(c: CorpusApp, ep: Endpoint, fx: Fixture = c.f): ReturnType<typeof client> {
  if (ep.auth === 'key') return client(c.t.app, c.m.test);
  if (ep.auth === 'admin' && fx.people) return sessionClient(c.t, fx.people.admin);
  if (ep.auth === 'courier' && fx.people) return sessionClient(c.t, fx.people.courier);
  return client(c.t.app);
}
