import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderStatus } from '../src/features/orders/schemas.js';
import { en } from '../src/features/tracking/i18n/en.js';
import { es } from '../src/features/tracking/i18n/es.js';
import { fill, negotiateLang } from '../src/features/tracking/i18n/index.js';
import { pt } from '../src/features/tracking/i18n/pt.js';
import { escapeHtml, renderTrackingPage } from '../src/features/tracking/page.js';
import { etaWindow, firstName, LIVE_STATUSES, presentPublic } from '../src/features/tracking/public.js';
import type { PublicOrderRow } from '../src/features/tracking/public-repo.js';
import type { TrackingView } from '../src/features/tracking/service.js';
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

// Everything that must never reach the public page or its JSON.
const PII = {
  order: validOrder({
    external_order_id: 'EXT-SECRET-9',
    customer: {
      name: 'Ana Torresvega',
      email: 'ana.secret@example.com',
      phone: '+51987654321',
      whatsapp: '+51911122233',
      document_type: 'DNI',
      document_number: '44556677',
    },
    delivery_address: {
      address: 'Av. Larcostreet 123',
      district: 'Miraflores',
      city: 'Lima',
      reference: 'Blue door near the bakery',
      access_notes: 'Gate code 4321',
      lat: -12.1211,
      lng: -77.0297,
    },
    customer_notes: 'Leave with the doorman',
    metadata: { crm_id: 'CRM-SECRET-42' },
    cash_on_delivery: 120.55,
  }),
  strings: [
    'Torresvega',
    'ana.secret@example.com',
    '987654321',
    '911122233',
    '44556677',
    'Larcostreet',
    'Blue door',
    '4321',
    'doorman',
    'CRM-SECRET-42',
    'EXT-SECRET-9',
    '120.55',
    '-12.1211',
    '-77.0297',
  ],
};

describeEach('public tracking', (engine) => {
  let t: TestApp;
  let m: Merchant;
  const anon = () => client(t.app);

  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t, 'Acme Shoes');
  });
  afterAll(async () => t?.close());

  async function createOrder(key = m.test, body: Record<string, unknown> = PII.order) {
    const res = await client(t.app, key)('POST', '/v1/orders', body);
    expect(res.status).toBe(201);
    return res.body as { id: string; tracking_code: string };
  }

  /**
   * Writes the order row and its timeline directly, as a lifecycle move would, to place exact
   * positions on the timeline; the real-moves test below covers the API path.
   */
  async function moveTo(orderId: string, status: OrderStatus, at: number, pos: [number, number] | null = null) {
    await t.ctx.db
      .updateTable('orders')
      .set({ status, courier_id: 'cou_test', courier_name: 'Juan Pérezgarcía', updated_at: at })
      .where('id', '=', orderId)
      .execute();
    await t.ctx.db
      .insertInto('order_timeline')
      .values({ order_id: orderId, status, occurred_at: at, lat: pos?.[0] ?? null, lng: pos?.[1] ?? null })
      .execute();
  }

  it('answers the public JSON without an API key', async () => {
    const o = await createOrder();
    const res = await anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'public_tracking',
      tracking_code: o.tracking_code,
      livemode: false,
      status: 'pending',
      status_label: 'Order received',
      merchant: { name: 'Acme Shoes' },
      customer: { first_name: 'Ana' },
      destination: { district: 'Miraflores', city: 'Lima' },
      courier: null,
      eta_minutes: null,
    });
    expect(res.body.timeline).toHaveLength(1);
    expect(res.body.timeline[0]).toEqual({
      status: 'pending',
      label: 'Order received',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['request-id']).toMatch(/^req_/);
    // A key, even a bogus one, is neither needed nor checked.
    const withKey = await client(t.app, 'sk_test_nonsense')('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(withKey.status).toBe(200);
  });

  it('tracks live and test orders alike, flagging test mode', async () => {
    const live = await createOrder(m.live);
    const test = await createOrder(m.test);
    expect((await anon()('GET', `/v1/public/tracking/${live.tracking_code}`)).body.livemode).toBe(true);
    const livePage = await anon()('GET', `/track/${live.tracking_code}`);
    const testPage = await anon()('GET', `/track/${test.tracking_code}`);
    expect(livePage.status).toBe(200);
    expect(livePage.raw.body).not.toContain('Test mode');
    expect(testPage.raw.body).toContain('Test mode');
  });

  it('is case-insensitive and tolerates grouped codes', async () => {
    const o = await createOrder();
    const code = o.tracking_code;
    const grouped = `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`.toLowerCase();
    for (const variant of [code.toLowerCase(), grouped]) {
      const res = await anon()('GET', `/v1/public/tracking/${variant}`);
      expect(res.status).toBe(200);
      expect(res.body.tracking_code).toBe(code);
      expect((await anon()('GET', `/track/${variant}`)).status).toBe(200);
    }
  });

  it('answers 404 for unknown and malformed codes: JSON error and a friendly page', async () => {
    const o = await createOrder();
    const cases = ['ZZZZZZZZZZZZ', 'abc', `${o.tracking_code}X`, o.id, 'UUUUUUUUUUUU', '%3Cb%3Ehi%3C%2Fb%3E'];
    for (const code of cases) {
      const json = await anon()('GET', `/v1/public/tracking/${code}`);
      expect(json.status).toBe(404);
      // param names the path parameter, as everywhere else: this route's is tracking_code, not id.
      expect(json.body.error).toMatchObject({
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'tracking_code',
      });
      const action = await anon()('POST', `/track/${code}/instructions`, { instructions: 'Ring twice' });
      expect(action.status).toBe(404);
      expect(action.body.error).toMatchObject({ code: 'resource_missing', param: 'tracking_code' });
      const page = await anon()('GET', `/track/${code}`);
      expect(page.status).toBe(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.raw.body).toContain('We could not find that parcel');
      expect(page.raw.body).not.toContain('<b>hi');
    }
    expect((await anon()('GET', '/track/%3Cb%3Ehi%3C%2Fb%3E')).raw.body).toContain('&lt;b&gt;hi&lt;/b&gt;');
  });

  it('shows no PII beyond a first name, in the JSON or on the page', async () => {
    const o = await createOrder();
    await moveTo(o.id, 'in_transit', Date.now(), [-12.0999, -77.0111]);
    const json = await anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    const page = await anon()('GET', `/track/${o.tracking_code}`);
    for (const body of [json.raw.body, page.raw.body]) {
      for (const secret of [...PII.strings, o.id]) expect(body).not.toContain(secret);
    }
    expect(page.raw.body).toContain('Ana');
    expect(page.raw.body).toContain('Miraflores, Lima');
    // The map's destination is rounded to about 100 m, never the stored point.
    expect(json.body.destination).toEqual({ district: 'Miraflores', city: 'Lima', lat: -12.121, lng: -77.03 });
    expect(Object.keys(json.body).sort()).toEqual(
      [
        'actions',
        'courier',
        'customer',
        'delivery',
        'destination',
        'eta_minutes',
        'eta_window',
        'failure_reason',
        'feedback',
        'lang',
        'next_step',
        'proof',
        'requested',
        'stops_before',
        'livemode',
        'merchant',
        'object',
        'status',
        'status_label',
        'timeline',
        'timezone',
        'tracking_code',
      ].sort(),
    );
  });

  it('hides the courier before pickup and after delivery; never exposes timeline positions', async () => {
    const o = await createOrder();
    const t0 = Date.now() - 60_000;
    await moveTo(o.id, 'assigned', t0, [-12.05, -77.04]);
    let json = await anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(json.body.status).toBe('assigned');
    expect(json.body.courier).toBeNull();
    let page = (await anon()('GET', `/track/${o.tracking_code}`)).raw.body;
    expect(page).not.toContain('Juan');

    await moveTo(o.id, 'picked_up', t0 + 1000, [-12.0511, -77.0422]);
    await moveTo(o.id, 'in_transit', t0 + 2000, [-12.0611, -77.0333]);
    json = await anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(json.body.status_label).toBe('On the way');
    expect(json.body.timeline.map((e: { status: string }) => e.status)).toEqual([
      'pending',
      'assigned',
      'picked_up',
      'in_transit',
    ]);
    for (const e of json.body.timeline) expect(Object.keys(e).sort()).toEqual(['label', 'occurred_at', 'status']);
    expect(json.raw.body).not.toContain('-12.0611');
    expect(json.raw.body).not.toContain('Pérezgarcía');
    // While the parcel is out, the courier may be shown; when present it carries the first name only.
    if (json.body.courier !== null) expect(json.body.courier.name).toBe('Juan');

    await moveTo(o.id, 'delivered', t0 + 3000, [-12.1211, -77.0297]);
    json = await anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect(json.body.courier).toBeNull();
    expect(json.body.eta_minutes).toBeNull();
    page = (await anon()('GET', `/track/${o.tracking_code}`)).raw.body;
    expect(page).not.toContain('Juan');
    expect(page).toContain('Delivered');
    expect(page).not.toContain('http-equiv="refresh"');
    // Nothing more will change: no reload even when asked, and no link offering it.
    page = (await anon()('GET', `/track/${o.tracking_code}?updates=auto`)).raw.body;
    expect(page).not.toContain('http-equiv="refresh"');
    expect(page).not.toContain('updates=auto');
  });

  it('shows the courier first name and live position through real moves, and only between pickup and arrival', async () => {
    const op = client(t.app, await newOperator(t, 'live'));
    const courier = (await op('POST', '/v1/couriers', { name: 'Rosa Quispehuaman' })).body;
    const o = await createOrder(m.live, { ...PII.order, requires_signature: false, cash_on_delivery: 0 });
    const pub = () => anon()('GET', `/v1/public/tracking/${o.tracking_code}`);
    expect((await op('POST', `/v1/orders/${o.id}/assign`, { courier_id: courier.id })).status).toBe(200);
    expect((await op('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.05, lng: -77.04 })).status).toBeLessThan(
      300,
    );
    expect((await pub()).body.courier).toBeNull();

    await op('POST', `/v1/orders/${o.id}/pickup`);
    await op('POST', `/v1/orders/${o.id}/depart`);
    await op('POST', `/v1/couriers/${courier.id}/location`, { lat: -12.0707, lng: -77.0345 });
    const live = (await pub()).body;
    expect(live.status).toBe('in_transit');
    expect(live.courier).toEqual({ name: 'Rosa', lat: -12.0707, lng: -77.0345 });
    expect(typeof live.eta_minutes).toBe('number');
    const page = (await anon()('GET', `/track/${o.tracking_code}`)).raw.body;
    expect(page).toContain('Rosa');
    expect(page).not.toContain('Quispehuaman');

    expect((await op('POST', `/v1/orders/${o.id}/deliver`, { receiver_name: 'Ana' })).status).toBe(200);
    const done = (await pub()).body;
    expect(done.status).toBe('delivered');
    expect(done.courier).toBeNull();
  });

  it('escapes hostile names on the page', async () => {
    const hostile = await newMerchant(t, '<script>alert("m")</script>');
    const o = await createOrder(
      hostile.test,
      validOrder({
        customer: { name: '<script>alert("pwn")</script> Smith' },
        delivery_address: { address: 'x', district: '"><img src=x onerror=alert(document.domain)>', city: 'Lima' },
      }),
    );
    const page = await anon()('GET', `/track/${o.tracking_code}`);
    expect(page.status).toBe(200);
    // The page's own script file (when the web is built) is the one script tag allowed.
    const html = page.raw.body.replace(/<script type="module" src="\/assets\/track-[\w-]+\.js"><\/script>/, '');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;pwn&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(document.domain)&gt;');
  });

  it('sends strict security headers with the page', async () => {
    const o = await createOrder();
    const page = await anon()('GET', `/track/${o.tracking_code}`);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    // The one inline stylesheet is allowed by its hash, so it must hash to exactly what the CSP names.
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.raw.body)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    expect(csp).toContain(`'sha256-${hash}'`);
    // Scripts only from this server, as files (no inline code); calls only to this server.
    expect(csp).toMatch(/script-src ('self'|'none');/);
    expect(csp).toContain("connect-src 'self'");
    expect(page.raw.body).not.toMatch(/<script>|<script [^>]*>[^<]|https?:\/\/[^"]*\.(css|js|woff2?)|src="http/i);
    // It never reloads itself (a timed reload moves a screen reader's place): it follows the delivery live.
    expect(page.raw.body).not.toContain('http-equiv="refresh"');
    const old = await anon()('GET', `/track/${o.tracking_code}?updates=auto&utm_source=sms`);
    expect(old.status).toBe(200);
    expect(old.raw.body).not.toContain('http-equiv="refresh"');
    expect(old.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
  });

  it('documents both routes in OpenAPI as keyless', async () => {
    const doc = (await anon()('GET', '/v1/openapi.json')).body;
    const json = doc.paths['/v1/public/tracking/{tracking_code}'].get;
    expect(json.tags).toEqual(['Public tracking']);
    expect(json.security).toEqual([]);
    expect(json.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PublicTracking',
    });
    expect(doc.components.schemas.PublicTracking.properties.courier).toBeDefined();
    const page = doc.paths['/track/{tracking_code}'].get;
    expect(page.security).toEqual([]);
  });
});

describe('public tracking presentation', () => {
  const row = {
    id: 'ord_x',
    tracking_code: 'ABCDEFGHJKMN',
    mode: 'live' as const,
    status: 'pending' as OrderStatus,
    customer: { name: '  Ana María Torres ', email: 'a@b.co' },
    delivery_address: { address: 'Street 1', district: 'Miraflores' },
    account_name: 'Acme',
    brand_name: null,
    brand_color: null,
    brand_logo_file: null,
    timezone: 'America/Lima',
    delivery_instructions: null,
    safe_place: null,
    feedback_rating: null,
    feedback_comment: null,
    requested_date: null,
    time_window: null,
    failure_reason: null,
    failure_notes: null,
  } as unknown as PublicOrderRow;
  const NOW = Date.parse('2025-07-01T15:00:00Z');
  const x = { now: NOW, lang: 'en' as const, logoUrl: null, proof: null };
  const view = (status: OrderStatus, stops_before: number | null = 0): TrackingView => ({
    object: 'tracking',
    order: 'ord_x',
    tracking_code: row.tracking_code,
    status,
    courier: { name: 'Juan Pérez', lat: -12.05, lng: -77.04 },
    eta_minutes: 12,
    stops_before,
    timeline: [
      {
        status: 'pending',
        occurred_at: '2025-07-01T10:00:00.000Z',
        lat: 1.5,
        lng: 2.5,
        accuracy_m: 9,
        recorded_at: '2025-07-01T10:00:00.000Z',
      },
    ],
  });
  const present = (
    status: OrderStatus,
    stops: number | null = 0,
    lang: 'en' | 'es' | 'pt' = 'en',
    over: Partial<PublicOrderRow> = {},
  ) => presentPublic({ ...row, status, ...over }, view(status, stops), { ...x, lang });
  const h1 = (html: string) => /<h1 id="status">(.*?)<\/h1>/.exec(html)?.[1];
  const CATALOGS = { en, es, pt } as const;
  const TILES = { scripts: [], styles: [], tiles: 'https://tiles.example/{z}/{x}/{y}.png', imgOrigins: [] };

  it('shows the courier first name between pickup and arrival, its position only on the way to this stop', () => {
    expect(LIVE_STATUSES).toEqual(['picked_up', 'in_transit', 'arriving', 'at_location']);
    for (const status of ORDER_STATUSES) {
      const p = present(status);
      if (['in_transit', 'arriving', 'at_location'].includes(status)) {
        expect(p.courier).toEqual({ name: 'Juan', lat: -12.05, lng: -77.04 });
      } else if (status === 'picked_up') expect(p.courier).toEqual({ name: 'Juan', lat: null, lng: null });
      else expect(p.courier).toBeNull();
      expect(p.timeline[0]).toEqual({
        status: 'pending',
        label: 'Order received',
        occurred_at: '2025-07-01T10:00:00.000Z',
      });
      expect(p.customer.first_name).toBe('Ana');
      expect(p.destination).toEqual({ district: 'Miraflores', city: null, lat: null, lng: null });
    }
    // Another stop first: the courier is somewhere else's door; where is none of this customer's business.
    expect(present('in_transit', 2).courier).toEqual({ name: 'Juan', lat: null, lng: null });
    expect(present('in_transit', 2).stops_before).toBe(2);
    expect(present('delivered').eta_minutes).toBeNull();
    expect(present('in_transit').eta_minutes).toBe(12);
  });

  it('gives an arrival window that narrows as the courier nears, on five-minute marks', () => {
    expect(etaWindow(NOW, 60)).toEqual({ from: '2025-07-01T15:45:00.000Z', to: '2025-07-01T16:15:00.000Z' });
    expect(etaWindow(NOW, 12)).toEqual({ from: '2025-07-01T15:05:00.000Z', to: '2025-07-01T15:20:00.000Z' });
    const width = (m: number) => {
      const w = etaWindow(NOW, m);
      return Date.parse(w.to) - Date.parse(w.from);
    };
    expect(width(90)).toBeGreaterThan(width(30));
    expect(width(30)).toBeGreaterThan(width(8));
    // Never a window that starts in the past.
    expect(Date.parse(etaWindow(NOW + 60_000, 2).from)).toBeGreaterThanOrEqual(NOW + 60_000);
  });

  it('renders local times, the window, the stops and what happens next in three languages', () => {
    const en = renderTrackingPage(present('in_transit', 3));
    // 15:00Z + 12 min in Lima (UTC-5): 10:05–10:20.
    expect(en).toContain('10:05–10:20');
    expect(en).toContain('(Lima)');
    expect(en).toContain('3 stops before yours');
    expect(en).toContain('Next, the courier arrives at your address.');
    expect(en).toContain('Times are in America/Lima');
    const es = renderTrackingPage(present('in_transit', 1, 'es'));
    expect(es).toContain('<html lang="es">');
    expect(es).toContain('En camino');
    expect(es).toContain('1 parada antes de la tuya');
    const pt = renderTrackingPage(present('failed', null, 'pt'));
    expect(pt).toContain('<html lang="pt">');
    expect(pt).toContain('Escolha um novo dia de entrega');
    expect(pt).not.toContain('Choose');
  });

  it('renders the courier on the page during the live window only', () => {
    const during = renderTrackingPage(present('arriving'));
    expect(during).toContain('<strong>Juan is almost at your door</strong>');
    expect(during).not.toContain('Pérez');
    const before = renderTrackingPage(present('ready_for_pickup'));
    expect(before).not.toContain('Juan');
    expect(before).not.toContain('-12.05');
  });

  it('keeps contact data out of the first name', () => {
    expect(firstName('Ana Torres')).toBe('Ana');
    expect(firstName('ana@example.com')).toBeNull();
    expect(firstName('+51987654321')).toBeNull();
    expect(firstName('   ')).toBeNull();
    expect(firstName(undefined)).toBeNull();
  });

  it('escapes HTML metacharacters', () => {
    expect(escapeHtml('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeHtml(`"'&`)).toBe('&quot;&#39;&amp;');
    const p = present('in_transit');
    const html = renderTrackingPage({ ...p, customer: { first_name: '<script>alert(1)</script>' } });
    expect(html).not.toContain('<script>');
    expect(html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;, your parcel is on its way');
  });

  it('heads every status with one sentence in each language, with the first name and without', () => {
    expect(h1(renderTrackingPage(present('pending', 0, 'es')))).toBe('Hola Ana: recibimos tu pedido');
    expect(h1(renderTrackingPage(present('failed', null, 'en')))).toBe('Hi Ana, we could not deliver your parcel');
    expect(h1(renderTrackingPage(present('at_location', 0, 'pt')))).toBe('Olá Ana, seu pacote chegou');
    const nameless = { customer: { name: 'ana@example.com' } } as Partial<PublicOrderRow>;
    expect(h1(renderTrackingPage(present('pending', 0, 'es', nameless)))).toBe('Recibimos tu pedido');
    expect(h1(renderTrackingPage(present('returned', 0, 'en', nameless)))).toBe('Your parcel has gone back to Acme');
    for (const status of ORDER_STATUSES) {
      for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
        const named = h1(renderTrackingPage(present(status, 0, lang)));
        const anonymous = h1(renderTrackingPage(present(status, 0, lang, nameless)));
        const context = `${status} in ${lang}`;
        expect(named, context).toBe(fill(w.headline[status], { name: 'Ana', merchant: 'Acme' }));
        expect(anonymous, context).toBe(fill(w.headlineAnonymous[status], { merchant: 'Acme' }));
        // A greeting, then a sentence that says the status; never the old "…your parcel is" + label.
        expect(named, context).toMatch(/^(Hi|Hola|Olá) Ana[,:] \p{Ll}/u);
        expect(anonymous, context).toMatch(/^\p{Lu}/u);
        expect(named, context).not.toContain('{');
        expect(named, context).not.toMatch(/(is|está)$/);
        // The headline has the same meaning without the greeting.
        expect(named?.replace(/^(Hi|Hola|Olá) Ana[,:] /, '').toLowerCase(), context).toBe(anonymous?.toLowerCase());
      }
    }
  });

  it('drops the arrival box and the stops once the courier is at the door, and after the end', () => {
    for (const status of [
      'at_location',
      'delivered',
      'partially_delivered',
      'failed',
      'returned',
      'cancelled',
    ] as const) {
      const p = present(status, 0, 'es');
      expect([p.eta_minutes, p.eta_window], status).toEqual([null, null]);
      const html = renderTrackingPage(p);
      expect(html, status).not.toContain('id="eta"');
      expect(html, status).not.toContain('id="stops"');
      expect(html, status).not.toContain(es.ui.etaNow);
    }
    const arrived = renderTrackingPage(present('at_location', 0, 'es'));
    expect(arrived).toContain('Juan está en la dirección de entrega.');
    expect(arrived).not.toContain(es.ui.stopsBeforeNone);
    expect(renderTrackingPage(present('arriving'))).toContain('id="eta"');
  });

  it('shows the requested day and time window, in the delivery zone, until the courier sets off', () => {
    // 03:00Z on the 15th is still Monday the 14th in Lima.
    const asked = { requested_date: '2025-07-15T03:00:00Z', time_window: { start: '14:00', end: '18:00' } };
    const p = present('pending', null, 'en', asked as Partial<PublicOrderRow>);
    expect(p.requested).toEqual({ day: '2025-07-14', time_window: { start: '14:00', end: '18:00' } });
    const html = renderTrackingPage(p);
    expect(html).toContain(
      '<span>Expected delivery</span> <b>Monday 14 July, 14:00–18:00</b> <span class="small">(Lima)</span>',
    );
    expect(renderTrackingPage(present('validated', null, 'es', asked as Partial<PublicOrderRow>))).toContain(
      '<b>lunes, 14 de julio, de 14:00 a 18:00</b>',
    );
    expect(renderTrackingPage(present('rescheduled', null, 'pt', asked as Partial<PublicOrderRow>))).toContain(
      '<b>segunda-feira, 14 de julho, das 14:00 às 18:00</b>',
    );
    const windowOnly = present('assigned', null, 'es', { time_window: asked.time_window } as Partial<PublicOrderRow>);
    expect(renderTrackingPage(windowOnly)).toContain('<b>de 14:00 a 18:00</b>');
    // Once on its way, the arrival window takes over.
    expect(present('in_transit', 0, 'en', asked as Partial<PublicOrderRow>).requested).toBeNull();
    expect(renderTrackingPage(present('pending'))).not.toContain('id="requested"');
  });

  it("says why an attempt failed in the customer's language, never the courier's notes", () => {
    const failed = {
      failure_reason: 'customer_absent',
      failure_notes: 'SECRET dog in the garden',
    } as Partial<PublicOrderRow>;
    for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
      const p = present('failed', null, lang, failed);
      expect(p.failure_reason).toBe('customer_absent');
      const html = renderTrackingPage(p);
      expect(html, lang).toContain(`<p class="notice">${escapeHtml(w.failure.customer_absent)}</p>`);
      expect(html + JSON.stringify(p), lang).not.toContain('SECRET');
    }
    expect(renderTrackingPage(present('failed', null, 'es', failed))).toContain(
      'El repartidor pasó, pero no había nadie en la dirección.',
    );
    // Only while failed: a returned parcel keeps its reason to itself.
    expect(present('returned', null, 'en', failed).failure_reason).toBeNull();
  });

  it('says nothing of a courier pin on the map when there is none, and draws no map after the end', () => {
    const here = {
      delivery_address: { district: 'Miraflores', lat: -12.1211, lng: -77.0297 },
    } as Partial<PublicOrderRow>;
    for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
      const waiting = renderTrackingPage(present('pending', null, lang, here), TILES);
      expect(waiting, lang).toContain(`hidden>${escapeHtml(w.ui.mapNoTilesDest)}</p>`);
      expect(w.ui.mapNoTilesDest, lang).not.toContain(w.ui.mapCourier.toLowerCase());
      const onTheWay = renderTrackingPage(present('in_transit', 0, lang, here), TILES);
      expect(onTheWay, lang).toContain(`hidden>${escapeHtml(w.ui.mapNoTiles)}</p>`);
      for (const status of ['delivered', 'failed', 'cancelled'] as const) {
        expect(renderTrackingPage(present(status, null, lang, here), TILES), status).not.toContain('id="map-card"');
      }
    }
  });

  it('names the instructions once, and leaves the new day for the customer to choose', () => {
    for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
      const html = renderTrackingPage(present('pending', null, lang));
      expect(html.split(escapeHtml(w.ui.instructions)).length - 1, lang).toBe(1);
      expect(html).toContain('<textarea id="instr" name="instructions" maxlength="500" aria-labelledby="instr-h"');
      const failed = renderTrackingPage(present('failed', null, lang));
      const radios = failed.match(/<input type="radio" name="day"[^>]*>/g) ?? [];
      expect(radios, lang).toHaveLength(5);
      for (const r of radios) {
        expect(r, lang).not.toContain('checked');
        expect(r, lang).toContain('required');
      }
    }
  });

  it('says where the courier is with the parcel, per status, and shows no courier card before pickup or after the attempt', () => {
    const card = (html: string) => /<section class="card courier"[^>]*>.*?<strong>(.*?)<\/strong>/.exec(html)?.[1];
    for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
      // A line for every status the view names a courier in, and for no other.
      expect(Object.keys(w.courierCard), lang).toEqual([...LIVE_STATUSES]);
      for (const status of ORDER_STATUSES) {
        const html = renderTrackingPage(present(status, 0, lang));
        const line = (w.courierCard as Partial<Record<OrderStatus, string>>)[status];
        if (line) expect(card(html), `${status} ${lang}`).toBe(escapeHtml(fill(line, { name: 'Juan' })));
        else expect(html, `${status} ${lang}`).not.toContain('class="card courier"');
      }
      // Without a usable first name, "your courier".
      const anonymous = renderTrackingPage(
        presentPublic(
          { ...row, status: 'at_location' },
          { ...view('at_location'), courier: { name: '+51 999 888 777', lat: -12.05, lng: -77.04 } },
          { ...x, lang },
        ),
      );
      expect(card(anonymous), lang).toBe(escapeHtml(fill(w.courierCard.at_location, { name: w.ui.courierAnonymous })));
    }
    expect(fill(en.courierCard.at_location, { name: 'Juan' })).toBe('Juan is at your door');
    expect(fill(es.courierCard.at_location, { name: 'Juan' })).toBe('Juan está en tu puerta');
    expect(fill(pt.courierCard.at_location, { name: 'Juan' })).toBe('Juan está na sua porta');
  });

  it('preselects no rating: the stars are a required radio group, and Send waits for one, saying so', () => {
    for (const [lang, w] of Object.entries(CATALOGS) as [keyof typeof CATALOGS, (typeof CATALOGS)['en']][]) {
      const html = renderTrackingPage(present('delivered', null, lang));
      const radios = html.match(/<input type="radio" name="rating"[^>]*>/g) ?? [];
      expect(radios, lang).toHaveLength(5);
      for (const r of radios) {
        expect(r, lang).not.toContain('checked');
        expect(r, lang).toContain('required');
      }
      expect(html, lang).toContain(
        `<fieldset role="radiogroup" aria-required="true" aria-describedby="rate-hint"><legend>${escapeHtml(w.ui.rating)}</legend>`,
      );
      expect(html, lang).toContain(`<p class="small form-hint" id="rate-hint">${escapeHtml(w.ui.chooseRating)}</p>`);
      // Enabled in the HTML: the script disables it until a star is chosen (a page without the
      // script could otherwise never rate); the required group stops an empty rating either way.
      expect(html, lang).toContain(
        `<button type="submit" aria-describedby="rate-hint">${escapeHtml(w.ui.send)}</button>`,
      );
    }
    expect(CATALOGS.en.ui.chooseRating).toBe('Choose 1 to 5 stars');
  });

  it('picks the language from ?lang=, then Accept-Language by quality, else English', () => {
    expect(negotiateLang('pt', 'es')).toBe('pt');
    expect(negotiateLang('xx', 'fr;q=1, pt-BR;q=0.8, es;q=0.5')).toBe('pt');
    expect(negotiateLang(undefined, 'es-PE,es;q=0.9,en;q=0.8')).toBe('es');
    expect(negotiateLang(undefined, 'de, fr')).toBe('en');
    expect(negotiateLang(undefined, 'es;q=0')).toBe('en');
    expect(negotiateLang(undefined, undefined)).toBe('en');
  });
});
