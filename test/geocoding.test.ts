import { afterAll, beforeAll, expect, it } from 'vitest';
import { readAnswer, searchUrl } from '../src/features/geocoding/client.js';
import { type LocalGeocoder, startLocalGeocoder } from './geocoder-server.js';
import {
  client,
  describeEach,
  type Merchant,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';
import { csv, drain, upload } from './imports-helpers.js';
import { courierSession, sessionClient, userSession } from './people-helpers.js';

// Geocoding (issue 24): addresses without coordinates are located through RUTA_GEOCODER_URL, here a
// local server speaking Nominatim's /search; orders keep how good the match was.

const PLACES = [
  {
    match: 'Av. Larco 345',
    lat: -12.1245,
    lng: -77.0301,
    rank: 30,
    name: '345, Avenida Larco, Miraflores, Lima, Perú',
  },
  {
    match: 'Jr. de la Unión',
    lat: -12.0478,
    lng: -77.0336,
    rank: 26,
    name: 'Jirón de la Unión, Cercado de Lima, Lima, Perú',
  },
  { match: 'Surquillo', lat: -12.1128, lng: -77.0122, rank: 16, name: 'Surquillo, Lima, Perú' },
];

const noCoordinates = (address: string, district?: string, ext = 'GEO-1') =>
  validOrder({ external_order_id: ext, delivery_address: { address, district, city: 'Lima' } });

describeEach('geocoding addresses', (engine) => {
  let t: TestApp;
  let plain: TestApp;
  let geo: LocalGeocoder;
  let m: Merchant;
  beforeAll(async () => {
    geo = await startLocalGeocoder(PLACES);
    t = await startApp(engine, { RUTA_GEOCODER_URL: geo.url, RUTA_PUBLIC_URL: 'https://ruta.example.com' });
    plain = await startApp(engine);
    m = await newMerchant(t, 'Geo Shop');
  });
  afterAll(async () => {
    await t?.close();
    await plain?.close();
    await geo?.close();
  });

  it('POST /v1/orders without lat/lng: located, with the match kept; a house match needs no review', async () => {
    const res = await client(t.app, m.test)('POST', '/v1/orders', noCoordinates('Av. Larco 345', 'Miraflores'));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.delivery_address).toMatchObject({ address: 'Av. Larco 345', lat: -12.1245, lng: -77.0301 });
    expect(res.body.geocode).toEqual({
      quality: 'address',
      confidence: 0.9,
      label: '345, Avenida Larco, Miraflores, Lima, Perú',
      needs_review: false,
    });
    // The geocoder was asked for the whole line, as Nominatim's policy wants: identified, JSON. (Found by
    // its query, not as the last request: in a shuffled order another test may have asked it since.)
    const last = geo.requests.find((r) => r.query.get('q') === 'Av. Larco 345, Miraflores, Lima');
    expect(last?.query.get('q')).toBe('Av. Larco 345, Miraflores, Lima');
    expect(last?.query.get('format')).toBe('jsonv2');
    expect(last?.headers['user-agent']).toMatch(/^Ruta\/.*https:\/\/ruta\.example\.com/);
    // Read back the same.
    const read = await client(t.app, m.test)('GET', `/v1/orders/${res.body.id}`);
    expect(read.body.geocode).toEqual(res.body.geocode);
    // Priced by distance from the account's origin would need one; the point is what planning uses.
  });

  it('flags an area-only match for review, and keeps an order the geocoder cannot find, without coordinates', async () => {
    const area = await client(t.app, m.test)(
      'POST',
      '/v1/orders',
      noCoordinates('Calle Desconocida 9', 'Surquillo', 'GEO-2'),
    );
    expect(area.status).toBe(201);
    expect(area.body.geocode).toMatchObject({ quality: 'area', needs_review: true });
    expect(area.body.delivery_address.lat).toBe(-12.1128);
    const none = await client(t.app, m.test)(
      'POST',
      '/v1/orders',
      noCoordinates('Pasaje Sin Nombre 1', undefined, 'GEO-3'),
    );
    expect(none.status).toBe(201);
    expect(none.body.geocode).toEqual({ quality: 'none', confidence: null, label: null, needs_review: true });
    expect(none.body.delivery_address.lat).toBeUndefined();
  });

  it('keeps the coordinates sent, asks nothing, and geocode is null', async () => {
    const before = geo.requests.length;
    const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder({ external_order_id: 'GEO-4' }));
    expect(res.status).toBe(201);
    expect(res.body.geocode).toBeNull();
    expect(geo.requests.length).toBe(before);
  });

  it('a geocoder outage does not refuse the order: kept without coordinates, flagged', async () => {
    geo.failing = true;
    try {
      const res = await client(t.app, m.test)('POST', '/v1/orders', noCoordinates('Jr. Nuevo 77', undefined, 'GEO-5'));
      expect(res.status).toBe(201);
      expect(res.body.geocode).toMatchObject({ quality: 'none', needs_review: true });
      const search = await client(t.app, m.test)('GET', '/v1/geocode?q=Jr.%20Nuevo%2077');
      expect(search.status).toBe(503);
      expect(search.body.error.code).toBe('service_unavailable');
    } finally {
      geo.failing = false;
    }
  });

  it('without RUTA_GEOCODER_URL nothing changes: no coordinates, geocode null; the search says why it is off', async () => {
    const other = await newMerchant(plain, 'Plain Shop');
    const res = await client(plain.app, other.test)('POST', '/v1/orders', noCoordinates('Av. Larco 345'));
    expect(res.status).toBe(201);
    expect(res.body.geocode).toBeNull();
    expect(res.body.delivery_address.lat).toBeUndefined();
    const search = await client(plain.app, other.test)('GET', '/v1/geocode?q=Av.%20Larco');
    expect(search.status).toBe(503);
    expect(search.body.error.message).toMatch(/RUTA_GEOCODER_URL/);
  });

  it('GET /v1/geocode: places best first for keys and users of either side; cached; couriers and bad input refused', async () => {
    const op = client(t.app, await newOperator(t));
    const res = await op('GET', `/v1/geocode?q=${encodeURIComponent('Jr. de la Unión 500, Lima')}&limit=3`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [
        {
          label: 'Jirón de la Unión, Cercado de Lima, Lima, Perú',
          lat: -12.0478,
          lng: -77.0336,
          quality: 'street',
          confidence: 0.7,
        },
      ],
    });
    // The same text again (spacing and case aside) is answered from the cache.
    const asked = geo.requests.length;
    const again = await client(t.app, m.live)(
      'GET',
      `/v1/geocode?q=${encodeURIComponent('jr. de la unión  500, lima')}&limit=3`,
    );
    expect(again.body).toEqual(res.body);
    expect(geo.requests.length).toBe(asked);

    expect((await client(t.app)('GET', '/v1/geocode?q=Larco')).status).toBe(401);
    expect((await client(t.app, 'sk_test_wrong')('GET', '/v1/geocode?q=Larco')).status).toBe(401);
    const short = await op('GET', '/v1/geocode?q=ab');
    expect(short.status).toBe(422);
    expect(short.body.error.param).toBe('q');
    expect((await op('GET', '/v1/geocode?q=Larco&limit=50')).status).toBe(422);
    expect((await op('GET', '/v1/geocode?q=Larco&extra=1')).status).toBe(422);
    const blank = await op('GET', '/v1/geocode?q=%20%20%20%20');
    expect(blank.status).toBe(422);
  });

  it('a courier phone session cannot search addresses; a signed-in dispatcher can', async () => {
    const opKey = await newOperator(t);
    const courier = (await client(t.app, opKey)('POST', '/v1/couriers', { name: 'Geo Courier' })).body;
    const phone = sessionClient(t, await courierSession(t, opKey, courier.id));
    const res = await phone('GET', '/v1/geocode?q=Larco%20345');
    expect(res.status).toBe(403);
    const dispatcher = sessionClient(t, await userSession(t, 'dispatcher'));
    const ok = await dispatcher('GET', '/v1/geocode?q=Av.%20Larco%20345');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data[0]).toMatchObject({ quality: 'address', lat: -12.1245 });
  });

  it('imports: rows without coordinates are geocoded, match kept, low-quality ones flagged for review', async () => {
    const shop = await newMerchant(t, 'Import Geo Shop');
    const body = csv([
      ['external_order_id', 'customer_name', 'customer_phone', 'address', 'district', 'city', 'item_description'],
      ['IMP-GEO-1', 'Rosa Quispe', '+51987654321', 'Av. Larco 345', 'Miraflores', 'Lima', 'Caja'],
      ['IMP-GEO-2', 'Luis Rojas', '+51987654322', 'Calle Sin Numero', 'Surquillo', 'Lima', 'Caja'],
    ]);
    const res = await upload(t, shop.test, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await drain(t);
    const done = (await client(t.app, shop.test)('GET', `/v1/order_imports/${res.body.id}`)).body;
    expect(done).toMatchObject({ status: 'succeeded', created: 2, failed: 0 });
    const orders = (await client(t.app, shop.test)('GET', '/v1/orders?limit=10')).body.data;
    const byExt = Object.fromEntries(orders.map((o: { external_order_id: string }) => [o.external_order_id, o]));
    expect(byExt['IMP-GEO-1'].geocode).toMatchObject({ quality: 'address', needs_review: false });
    expect(byExt['IMP-GEO-1'].delivery_address).toMatchObject({ lat: -12.1245, lng: -77.0301 });
    expect(byExt['IMP-GEO-2'].geocode).toMatchObject({ quality: 'area', needs_review: true });
  });
});

it('reads Pelias answers too: layer for quality, its own confidence', () => {
  expect(searchUrl('https://api.geocode.example/v1?api_key=k', 'Av. Larco 345', 3)).toBe(
    'https://api.geocode.example/v1/search?api_key=k&text=Av.+Larco+345&size=3',
  );
  expect(searchUrl('https://nominatim.example/', 'Larco', 1)).toBe(
    'https://nominatim.example/search?q=Larco&format=jsonv2&limit=1&addressdetails=0',
  );
  const matches = readAnswer('pelias', {
    features: [
      {
        geometry: { coordinates: [-77.03, -12.12] },
        properties: { label: 'Av. Larco 345', layer: 'address', confidence: 0.95 },
      },
      {
        geometry: { coordinates: [-77.01, -12.11] },
        properties: { label: 'Surquillo', layer: 'locality', confidence: 0.4 },
      },
      { geometry: {}, properties: { label: 'broken' } },
    ],
  });
  expect(matches).toEqual([
    { lat: -12.12, lng: -77.03, label: 'Av. Larco 345', quality: 'address', confidence: 0.95 },
    { lat: -12.11, lng: -77.01, label: 'Surquillo', quality: 'area', confidence: 0.4 },
  ]);
  expect(readAnswer('nominatim', { error: 'nope' })).toEqual([]);
});
