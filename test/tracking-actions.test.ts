import { afterAll, beforeAll, expect, it } from 'vitest';
import { TRACKING_HUB } from '../src/features/tracking/live-hub.js';
import { ACTIONS_PER_CODE_PER_MIN } from '../src/features/tracking/public-routes.js';
import { WINDOW_MS } from '../src/shared/rate-limit.js';
import { client, describeEach, type Merchant, newMerchant, newOperator, startApp, type TestApp } from './helpers.js';
import { eventsOf, orderIn, tinyPng, upload } from './lifecycle-helpers.js';
import { sessionClient, userSession } from './people-helpers.js';
import { openStream, type SseStream } from './stream-client.js';

// The customer's actions and the live stream of the tracking page (DESIGN §15, issue #20).
describeEach('tracking page actions and live stream', (engine) => {
  let t: TestApp;
  let m: Merchant;
  let op: ReturnType<typeof client>;
  let opKey: string;
  let courierId: string;
  const anon = (lang?: string) => (method: 'GET' | 'POST', url: string, body?: unknown) =>
    client(t.app)(method, url, body, lang ? { 'accept-language': lang } : {});

  beforeAll(async () => {
    // The per-address limit of the public scope is tested elsewhere; here the per-code limits are.
    t = await startApp(engine, { RUTA_PUBLIC_RATE_LIMIT_PER_MIN: '0', RUTA_TRACK_STREAMS_PER_CLIENT: '8' });
    m = await newMerchant(t, 'Acme Shoes');
    opKey = await newOperator(t, 'live');
    op = client(t.app, opKey);
    courierId = (await op('POST', '/v1/couriers', { name: 'Rosa Quispe' })).body.id;
  });
  afterAll(async () => t?.close());

  const orderAt = (status: string, over: Record<string, unknown> = {}) =>
    orderIn(t, m.live, opKey, courierId, status, over);
  const pub = async (code: string) => (await anon()('GET', `/v1/public/tracking/${code}`)).body;
  const post = (code: string, action: string, body: unknown) => anon()('POST', `/track/${code}/${action}`, body);
  const orderRow = (id: string) =>
    t.ctx.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('takes delivery instructions and a safe place before departure, as an order event', async () => {
    const o = await orderAt('assigned');
    expect((await pub(o.tracking_code)).actions).toEqual({
      instructions: true,
      reschedule_days: null,
      feedback: false,
    });
    const res = await post(o.tracking_code, 'instructions', {
      instructions: ' Ring twice\u0007 ',
      safe_place: 'Porch',
    });
    expect(res.status).toBe(200);
    expect(res.body.delivery).toEqual({ instructions: 'Ring twice', safe_place: 'Porch' });
    const events = await eventsOf(t, o.id);
    const e = events.find((x) => x.event === 'order.instructions_updated');
    expect(e.data).toMatchObject({
      id: o.id,
      delivery_instructions: 'Ring twice',
      safe_place: 'Porch',
      by: 'customer',
    });
    expect(e.data.sequence).toBe(events.length);
    const row = await orderRow(o.id);
    expect([row.status, row.delivery_instructions, row.safe_place]).toEqual(['assigned', 'Ring twice', 'Porch']);
    // The merchant and the carrier read them on the order.
    const order = (await client(t.app, m.live)('GET', `/v1/orders/${o.id}`)).body;
    expect([order.delivery_instructions, order.safe_place]).toEqual(['Ring twice', 'Porch']);
    // The page shows them back, and the form keeps them.
    const page = (await anon()('GET', `/track/${o.tracking_code}`)).raw.body;
    expect(page).toContain('>Ring twice</textarea>');
    // Empty clears.
    expect((await post(o.tracking_code, 'instructions', { instructions: '' })).body.delivery).toEqual({
      instructions: null,
      safe_place: null,
    });
  });

  it('refuses instructions after departure, malformed bodies, and any other field', async () => {
    const o = await orderAt('in_transit');
    const late = await post(o.tracking_code, 'instructions', { instructions: 'Too late' });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('invalid_transition');
    const p = await orderAt('pending');
    for (const body of [
      {},
      { instructions: 5 },
      { instructions: 'x'.repeat(501) },
      { instructions: 'ok', status: 'delivered' },
      { instructions: 'ok', customer: { name: 'Mallory' } },
    ]) {
      const res = await post(p.tracking_code, 'instructions', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const row = await orderRow(p.id);
    expect([row.status, row.delivery_instructions, JSON.parse(row.customer).name]).toEqual([
      'pending',
      null,
      'Ana Torres',
    ]);
    expect((await post('ZZZZZZZZZZZZ', 'instructions', { instructions: 'x' })).status).toBe(404);
  });

  it('offers new days after a failure and moves the order to rescheduled on the chosen one', async () => {
    const o = await orderAt('failed');
    const view = await pub(o.tracking_code);
    expect(view.actions.reschedule_days).toHaveLength(5);
    const wrong = await post(o.tracking_code, 'reschedule', { day: '2020-01-01' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.param).toBe('day');
    const day = view.actions.reschedule_days[2];
    const res = await post(o.tracking_code, 'reschedule', { day });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('rescheduled');
    const e = (await eventsOf(t, o.id)).find((x) => x.event === 'order.rescheduled');
    expect(e.data).toMatchObject({ requested_day: day, by: 'customer' });
    const order = (await client(t.app, m.live)('GET', `/v1/orders/${o.id}`)).body;
    expect([order.status, order.requested_day, order.courier]).toEqual(['rescheduled', day, null]);
    // Once is enough: it is no longer failed.
    expect((await post(o.tracking_code, 'reschedule', { day })).status).toBe(409);
    const delivered = await orderAt('delivered');
    expect((await post(delivered.tracking_code, 'reschedule', { day })).status).toBe(409);
  });

  it('says the requested day and window, why an attempt failed, and no arrival at the door, through real moves', async () => {
    const page = async (code: string, lang: string) => (await anon()('GET', `/track/${code}?lang=${lang}`)).raw.body;
    // Pending, asked for the 14th from 14:00 to 18:00 (the account's zone, as the order's).
    const asked = await orderAt('pending', {
      requested_date: '2030-01-14',
      time_window: { start: '14:00', end: '18:00' },
    });
    const pending = await pub(asked.tracking_code);
    expect(pending.requested).toEqual({ day: '2030-01-14', time_window: { start: '14:00', end: '18:00' } });
    const es = await page(asked.tracking_code, 'es');
    expect(es).toContain('<h1 id="status">Hola Ana: recibimos tu pedido</h1>');
    expect(es).toContain('<b>lunes, 14 de enero, de 14:00 a 18:00</b>');
    expect(await page(asked.tracking_code, 'en')).toContain('<b>Monday 14 January, 14:00–18:00</b>');

    // Failed with the courier's notes: the reason in words, the notes nowhere.
    const failing = await orderAt('picked_up');
    const fail = await op('POST', `/v1/orders/${failing.id}/fail`, {
      reason: 'customer_absent',
      notes: 'NOTE-SECRET neighbour says away',
    });
    expect(fail.status, JSON.stringify(fail.body)).toBe(200);
    const failed = await pub(failing.tracking_code);
    expect([failed.status, failed.failure_reason, failed.requested]).toEqual(['failed', 'customer_absent', null]);
    const pt = await page(failing.tracking_code, 'pt');
    expect(pt).toContain('<h1 id="status">Olá Ana, não conseguimos entregar seu pacote</h1>');
    expect(pt).toContain('O entregador passou, mas não havia ninguém no endereço.');
    expect(await page(failing.tracking_code, 'en')).toContain('The courier came, but nobody was at the address.');
    expect(pt + JSON.stringify(failed)).not.toContain('NOTE-SECRET');
    expect(pt).not.toMatch(/name="day"[^>]*checked/);

    // At the door: no arrival to wait for, on the JSON, the page and the stream.
    const door = await orderAt('at_location');
    const there = await pub(door.tracking_code);
    expect([there.eta_minutes, there.eta_window]).toEqual([null, null]);
    const html = await page(door.tracking_code, 'es');
    expect(html).toContain('Rosa está en la dirección de entrega.');
    expect(html).not.toContain('id="eta"');
    expect(html).not.toContain('en cualquier momento');
    const s = await openStream(t.app, undefined, {}, 10_000, `/track/${door.tracking_code}/events?lang=es`);
    try {
      const first = await s.next((x) => x.event === 'tracking', 'the first state');
      expect([first.data.status, first.data.eta, first.data.stops]).toEqual(['at_location', null, null]);
    } finally {
      s.close();
    }
  });

  it('takes one 1-5 rating with a comment after delivery, and the courier average follows', async () => {
    const courier = (await op('POST', '/v1/couriers', { name: 'Luis Rated' })).body.id;
    const before = await orderIn(t, m.live, opKey, courier, 'in_transit');
    expect((await post(before.tracking_code, 'feedback', { rating: 5 })).status).toBe(409);
    const a = await orderIn(t, m.live, opKey, courier, 'delivered');
    const b = await orderIn(t, m.live, opKey, courier, 'delivered');
    expect((await pub(a.tracking_code)).actions.feedback).toBe(true);
    for (const body of [{ rating: 0 }, { rating: 6 }, { rating: 4.5 }, { rating: 4, comment: 'x'.repeat(1001) }]) {
      expect((await post(a.tracking_code, 'feedback', body)).status, JSON.stringify(body)).toBe(422);
    }
    const res = await post(a.tracking_code, 'feedback', { rating: 4, comment: 'Friendly' });
    expect(res.status).toBe(200);
    expect(res.body.feedback).toEqual({ rating: 4, comment: 'Friendly' });
    expect(res.body.actions.feedback).toBe(false);
    expect((await post(a.tracking_code, 'feedback', { rating: 1 })).status).toBe(409);
    expect((await post(b.tracking_code, 'feedback', { rating: 1 })).status).toBe(200);
    const c = await t.ctx.db.selectFrom('couriers').selectAll().where('id', '=', courier).executeTakeFirstOrThrow();
    expect([c.rating_count, c.rating_total]).toEqual([2, 5]);
    // The order carries its rating, the courier its average.
    const rated = (await op('GET', `/v1/orders/${a.id}`)).body;
    expect(rated.feedback).toMatchObject({ rating: 4, comment: 'Friendly' });
    expect((await op('GET', `/v1/orders/${before.id}`)).body.feedback).toBeNull();
    expect((await op('GET', `/v1/couriers/${courier}`)).body.rating).toEqual({ average: 2.5, count: 2 });
    const e = (await eventsOf(t, a.id)).find((x) => x.event === 'order.rated');
    expect(e.data).toMatchObject({ rating: 4, comment: 'Friendly', by: 'customer', courier: { id: courier } });
  });

  it('limits changes per tracking code', async () => {
    // The limit counts per fixed minute; a run that straddles a minute's end (a loaded CI) starts a
    // fresh bucket half-way, so it is tried again on a new code, which cannot straddle twice.
    const windowOf = () => Math.floor(Date.now() / WINDOW_MS);
    let o: Awaited<ReturnType<typeof orderAt>> | undefined;
    let over: Awaited<ReturnType<typeof post>> | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      o = await orderAt('pending');
      const started = windowOf();
      for (let i = 0; i < ACTIONS_PER_CODE_PER_MIN; i++) {
        expect((await post(o.tracking_code, 'instructions', { instructions: `n${i}` })).status).toBe(200);
      }
      over = await post(o.tracking_code, 'instructions', { instructions: 'one more' });
      if (windowOf() === started) break;
    }
    if (!o || !over) throw new Error('unreachable');
    const other = await orderAt('pending');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBeDefined();
    // Another code is its own bucket; and the refused change wrote nothing.
    expect((await post(other.tracking_code, 'instructions', { instructions: 'fine' })).status).toBe(200);
    expect((await orderRow(o.id)).delivery_instructions).toBe(`n${ACTIONS_PER_CODE_PER_MIN - 1}`);
  });

  it("one code's actions never touch another order", async () => {
    const mine = await orderAt('pending');
    const theirs = await orderAt('pending');
    await post(mine.tracking_code, 'instructions', { instructions: 'Mine only' });
    const row = await orderRow(theirs.id);
    expect([row.delivery_instructions, row.event_seq]).toEqual([null, 1]);
    expect((await pub(theirs.tracking_code)).delivery.instructions).toBeNull();
  });

  it('answers in the language asked for, ?lang= first', async () => {
    const o = await orderAt('assigned');
    expect((await anon('es-PE,es;q=0.9')('GET', `/v1/public/tracking/${o.tracking_code}`)).body.status_label).toBe(
      'Repartidor asignado',
    );
    const pt = await anon('es')('GET', `/track/${o.tracking_code}?lang=pt`);
    expect(pt.headers['content-language']).toBe('pt');
    expect(pt.raw.body).toContain('Entregador designado');
  });

  it('streams status, the arrival window and the courier position of one order, and nothing of others', async () => {
    const courier = (await op('POST', '/v1/couriers', { name: 'Marta Live' })).body.id;
    const o = await orderIn(t, m.live, opKey, courier, 'picked_up', {
      delivery_address: { address: 'Av. 1', district: 'Miraflores', city: 'Lima', lat: -12.12, lng: -77.03 },
    });
    const other = await orderIn(t, m.live, opKey, courier, 'assigned');
    await op('POST', `/v1/couriers/${courier}/location`, { lat: -12.05, lng: -77.04 });
    const s = await openStream(
      t.app,
      undefined,
      { 'accept-language': 'es' },
      10_000,
      `/track/${o.tracking_code}/events`,
    );
    try {
      expect(s.status).toBe(200);
      expect(s.headers['content-type']).toContain('text/event-stream');
      const first = await s.next((x) => x.event === 'tracking', 'the first state');
      // Picked up: the courier is not yet on the way here, so no position.
      expect(first.data).toMatchObject({ status: 'picked_up', courier: null });
      expect(first.data.stops).toBe('Eres la próxima parada');
      await op('POST', `/v1/orders/${o.id}/depart`);
      await t.ctx.instance.get(TRACKING_HUB).refresh();
      const moved = await s.next((x) => x.data.status === 'in_transit', 'the departure');
      expect(moved.data.rev).toBeGreaterThan(first.data.rev);
      expect(moved.data.courier).toEqual({ lat: -12.05, lng: -77.04 });
      expect(moved.data.eta).toMatch(/^\d\d:\d\d–\d\d:\d\d$/);
      await op('POST', `/v1/couriers/${courier}/location`, { lat: -12.1, lng: -77.035 });
      await t.ctx.instance.get(TRACKING_HUB).refresh();
      await s.next((x) => x.data.courier?.lat === -12.1, 'the new position');
      // Another order's move is not this stream's business.
      await op('POST', `/v1/orders/${other.id}/pickup`);
      await t.ctx.instance.get(TRACKING_HUB).refresh();
      for (const msg of s.messages) expect(['picked_up', 'in_transit']).toContain(msg.data.status);
      expect(JSON.stringify(s.messages)).not.toContain(other.id);
      expect(JSON.stringify(s.messages)).not.toContain(o.id);
    } finally {
      s.close();
    }
  });

  it('limits open streams per code and per client address', async () => {
    const a = await orderAt('pending');
    const b = await orderAt('pending');
    const open = (code: string) => openStream(t.app, undefined, {}, 10_000, `/track/${code}/events`);
    const streams: SseStream[] = [];
    try {
      for (let i = 0; i < 5; i++) streams.push(await open(a.tracking_code));
      expect(streams.every((s) => s.status === 200)).toBe(true);
      const sixth = await open(a.tracking_code);
      expect(sixth.status).toBe(429);
      expect(sixth.body.error.code).toBe('rate_limited');
      // RUTA_TRACK_STREAMS_PER_CLIENT=8: three more on another code, then none.
      for (let i = 0; i < 3; i++) streams.push(await open(b.tracking_code));
      expect(streams.map((s) => s.status)).toEqual(Array(8).fill(200));
      expect((await open(b.tracking_code)).status).toBe(429);
      expect((await open('ZZZZZZZZZZZZ')).status).toBe(404);
    } finally {
      for (const s of streams) s.close();
    }
  });

  // A form posted by the page itself, without its script: form fields, not JSON.
  const formPost = (code: string, fields: Record<string, string>, lang = 'es') =>
    t.app.inject({
      method: 'POST',
      url: `/track/${code}?lang=${lang}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const html = async (url: string) => (await t.app.inject({ method: 'GET', url })).body;

  it("takes the page's forms without its script: a redirect back to the page, which thanks or says it failed", async () => {
    // Instructions: the page's form posts to the page, and the answer sends the customer back to it.
    const o = await orderAt('assigned');
    const before = await html(`/track/${o.tracking_code}?lang=es`);
    expect(before).toContain(
      `<form method="post" action="/track/${o.tracking_code}?lang=es" data-action="instructions">`,
    );
    const saved = await formPost(o.tracking_code, {
      do: 'instructions',
      instructions: 'Tocar el timbre',
      safe_place: 'Portería',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/track/${o.tracking_code}?lang=es&done=instructions`);
    expect(saved.headers['cache-control']).toBe('no-store');
    const row = await orderRow(o.id);
    expect([row.delivery_instructions, row.safe_place]).toEqual(['Tocar el timbre', 'Portería']);
    const e = (await eventsOf(t, o.id)).find((x) => x.event === 'order.instructions_updated');
    expect(e.data).toMatchObject({ delivery_instructions: 'Tocar el timbre', by: 'customer' });
    const thanked = await html(saved.headers.location as string);
    expect(thanked).toContain('<p class="flash" role="status">Gracias, el repartidor verá tus instrucciones.</p>');
    expect(thanked).toContain('>Tocar el timbre</textarea>');
    // Too long: refused as the JSON route refuses it, nothing written, and the page says so.
    const long = await formPost(o.tracking_code, { do: 'instructions', instructions: 'x'.repeat(501) }, 'en');
    expect(long.headers.location).toBe(`/track/${o.tracking_code}?lang=en&failed=instructions`);
    expect(await html(long.headers.location as string)).toContain(
      '<p class="flash fail" role="status">That did not work. Please try again.</p>',
    );
    expect((await orderRow(o.id)).delivery_instructions).toBe('Tocar el timbre');

    // A new day after a failure; then instructions again, now that the order waits for that day.
    const f = await orderAt('failed');
    const day = (await pub(f.tracking_code)).actions.reschedule_days[1];
    const moved = await formPost(f.tracking_code, { do: 'reschedule', day }, 'en');
    expect(moved.headers.location).toBe(`/track/${f.tracking_code}?lang=en&done=reschedule`);
    expect((await orderRow(f.id)).status).toBe('rescheduled');
    const weekday = new Intl.DateTimeFormat('en-GB', {
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      timeZone: 'UTC',
    });
    expect(await html(moved.headers.location as string)).toContain(
      `Thank you: we will deliver on ${weekday.format(new Date(`${day}T12:00:00Z`))}.`,
    );
    expect((await formPost(f.tracking_code, { do: 'reschedule', day }, 'en')).headers.location).toContain(
      '&failed=reschedule',
    );

    // The rating: its button is not disabled in the HTML (the script disables it until a star is
    // chosen), or a customer without the script could never rate; the stars are a required group.
    const d = await orderAt('delivered');
    const form = await html(`/track/${d.tracking_code}?lang=pt`);
    expect(form).toMatch(/<button type="submit" aria-describedby="rate-hint">Enviar avaliação<\/button>/);
    expect(form).toContain('name="rating" value="1" required');
    expect((await formPost(d.tracking_code, { do: 'feedback', rating: '9' }, 'pt')).headers.location).toContain(
      '&failed=feedback',
    );
    const rated = await formPost(d.tracking_code, { do: 'feedback', rating: '4', comment: 'Muito bom' }, 'pt');
    expect(rated.headers.location).toBe(`/track/${d.tracking_code}?lang=pt&done=feedback`);
    const r = await orderRow(d.id);
    expect([r.feedback_rating, r.feedback_comment]).toEqual([4, 'Muito bom']);
    const after = await html(rated.headers.location as string);
    expect(after).toContain('Obrigado pela sua avaliação.');
    // "What happens next" no longer points at a rating form that is gone.
    expect(after).toContain('Nada mais a fazer. Obrigado por avaliar a entrega.');
    expect((await pub(d.tracking_code)).next_step).toBe('Nothing more to do. Thank you for rating the delivery.');

    // An unknown form, an unknown code; and the JSON routes still take JSON only.
    expect((await formPost(o.tracking_code, { do: 'cancel' })).headers.location).toBe(
      `/track/${o.tracking_code}?lang=es`,
    );
    const lost = await formPost('ZZZZZZZZZZZZ', { do: 'instructions', instructions: 'x' });
    expect([lost.statusCode, lost.headers['content-type']]).toEqual([404, 'text/html; charset=utf-8']);
    const json = await t.app.inject({
      method: 'POST',
      url: `/track/${o.tracking_code}/instructions`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'instructions=x',
    });
    expect(json.statusCode).toBe(415);
  });

  it('takes instructions once a new day is set after a failure, as before the first departure', async () => {
    const o = await orderAt('failed');
    expect((await post(o.tracking_code, 'instructions', { instructions: 'x' })).status).toBe(409);
    const day = (await pub(o.tracking_code)).actions.reschedule_days[0];
    expect((await post(o.tracking_code, 'reschedule', { day })).status).toBe(200);
    const view = await pub(o.tracking_code);
    expect([view.status, view.actions.instructions]).toEqual(['rescheduled', true]);
    const res = await post(o.tracking_code, 'instructions', { instructions: 'Leave it with the doorman' });
    expect(res.status).toBe(200);
    expect(res.body.delivery.instructions).toBe('Leave it with the doorman');
    const page = await html(`/track/${o.tracking_code}?lang=en`);
    expect(page).toContain('data-action="instructions"');
    expect(page).toContain('You can leave delivery instructions below.');
  });

  it('shows the window asked for while the parcel is on its way and no arrival can be estimated yet', async () => {
    // A courier of its own: no position shared yet, so no estimate.
    const silent = (await op('POST', '/v1/couriers', { name: 'Silvia Silent' })).body.id;
    const o = await orderIn(t, m.live, opKey, silent, 'in_transit', {
      requested_date: '2030-01-14',
      time_window: { start: '14:00', end: '18:00' },
    });
    const blind = await pub(o.tracking_code);
    expect([blind.eta_window, blind.requested]).toEqual([
      null,
      { day: '2030-01-14', time_window: { start: '14:00', end: '18:00' } },
    ]);
    const page = await html(`/track/${o.tracking_code}?lang=en`);
    expect(page).toContain(
      '<p class="eta" id="requested" data-until-eta><span>Expected delivery</span> <b>Monday 14 January, 14:00–18:00</b>',
    );
    // Once the courier's phone reports, the estimate takes its place.
    expect((await op('POST', `/v1/couriers/${silent}/location`, { lat: -12.1, lng: -77.03 })).status).toBe(200);
    const seen = await pub(o.tracking_code);
    expect(seen.eta_window).not.toBeNull();
    expect(seen.requested).toBeNull();
  });

  it('has a page to type a code on, and the page of an unknown code has the same box', async () => {
    const o = await orderAt('pending');
    const find = await t.app.inject({ method: 'GET', url: '/track', headers: { 'accept-language': 'es-PE,es;q=0.9' } });
    expect([find.statusCode, find.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(find.body).toContain('<h1 id="status">Sigue tu paquete</h1>');
    expect(find.body).toContain('<form class="find" method="get" action="/track" role="search">');
    expect((await t.app.inject({ method: 'GET', url: '/track/' })).statusCode).toBe(200);
    // A code typed as on the label, in groups and lower case, goes to its page.
    const grouped = o.tracking_code.toLowerCase().replace(/(.{4})(?=.)/g, '$1-');
    const go = await t.app.inject({ method: 'GET', url: `/track?code=${grouped}&lang=pt` });
    expect([go.statusCode, go.headers.location]).toEqual([303, `/track/${o.tracking_code}?lang=pt`]);
    // One that matches nothing: the "not found" page, with the box to try again (what was typed in
    // it) and the language links.
    const miss = await t.app.inject({ method: 'GET', url: '/track?code=ABC%3Cb%3E&lang=en' });
    expect(miss.headers.location).toBe('/track/ABC%3Cb%3E?lang=en');
    const lost = await t.app.inject({ method: 'GET', url: miss.headers.location as string });
    expect(lost.statusCode).toBe(404);
    expect(lost.body).toContain('We could not find that parcel');
    expect(lost.body).toContain('id="code" name="code" value="ABC&lt;b&gt;"');
    expect(lost.body).toContain('<a href="?lang=es" lang="es" hreflang="es">Español</a>');
    expect(lost.body).not.toContain('<b>');
  });

  it("shows the merchant's brand, set by an admin: display name, colour and logo", async () => {
    const admin = sessionClient(t, await userSession(t, 'admin'), 'live');
    const shop = await newMerchant(t, 'Plain Account Name');
    const logo = await upload(t, opKey, 'logo', tinyPng(4, [10, 90, 200]));
    expect(logo.status, JSON.stringify(logo.body)).toBe(201);
    const photo = await upload(t, opKey, 'photo', tinyPng());
    const bad = [
      { branding: { color: 'red' } },
      { branding: { display_name: '' } },
      { branding: { logo_file: photo.body.id } },
      { branding: { logo_file: 'file_nope' } },
      { branding: { color: '#ffcc00', extra: 1 } },
    ];
    for (const body of bad) {
      expect((await admin('PATCH', `/v1/accounts/${shop.accountId}`, body)).status, JSON.stringify(body)).toBe(422);
    }
    // A merchant's own key cannot brand (admins only).
    const merchantTry = await client(t.app, shop.live)('PATCH', `/v1/accounts/${shop.accountId}`, {
      branding: { color: '#000000' },
    });
    expect([401, 403]).toContain(merchantTry.status);
    const patched = await admin('PATCH', `/v1/accounts/${shop.accountId}`, {
      branding: { display_name: 'Zapatos Ana', color: '#ffcc00', logo_file: logo.body.id },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.branding).toEqual({ display_name: 'Zapatos Ana', color: '#ffcc00', logo_file: logo.body.id });
    const o = await orderIn(t, shop.live, opKey, courierId, 'pending');
    const view = await pub(o.tracking_code);
    expect(view.merchant).toMatchObject({ name: 'Zapatos Ana', color: '#ffcc00' });
    expect(view.merchant.logo_url).toContain(`/v1/files/${logo.body.id}/content`);
    const page = await anon()('GET', `/track/${o.tracking_code}`);
    expect(page.raw.body).toContain('Zapatos Ana');
    expect(page.raw.body).not.toContain('Plain Account Name');
    // A light brand colour gets dark text on it; its style block is allowed by hash, nothing inline.
    expect(page.raw.body).toContain('<style>:root{--brand:#ffcc00;--on-brand:#111827}</style>');
    const css = ':root{--brand:#ffcc00;--on-brand:#111827}';
    const hash = (await import('node:crypto')).createHash('sha256').update(css).digest('base64');
    expect(page.headers['content-security-policy']).toContain(`'sha256-${hash}'`);
    // Cleared: back to the account's name.
    await admin('PATCH', `/v1/accounts/${shop.accountId}`, {
      branding: { display_name: null, color: null, logo_file: null },
    });
    expect((await pub(o.tracking_code)).merchant).toEqual({ name: 'Plain Account Name', color: null, logo_url: null });
  });
});
