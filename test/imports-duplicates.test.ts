import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { externalIdsQuery } from '../src/features/imports/repo.js';
import { client, describeEach, type Merchant, newMerchant, startApp, type TestApp } from './helpers.js';
import { csv, drain, HEADER, imported, upload, withImportBefore } from './imports-helpers.js';
import { explain } from './plan-helpers.js';

/** The same file imported twice: warnings, `?duplicates=skip`, and a crash that changes neither (docs/imports.md). */
describeEach('order imports: the same orders twice', (engine) => {
  let t: TestApp;
  let m: Merchant;
  beforeAll(async () => {
    t = await startApp(engine);
    m = await newMerchant(t);
  });
  afterAll(async () => t?.close());

  type Line = { row: number; column: string | null; param: string | null; code: string; message: string };
  const get = (path: string, key = m.test) => client(t.app, key)('GET', path);
  const run = (body: string, qs = '', key = m.test) => imported(t, key, body, 'text/csv', qs);
  const idsOf = async (ext: string, key = m.test): Promise<string[]> =>
    (
      (await get(`/v1/orders?external_order_id=${encodeURIComponent(ext)}&limit=100`, key)).body.data as {
        id: string;
      }[]
    ).map((o) => o.id);
  const row = (ext: string, item = 'Caja', name = `Cliente ${ext}`) => [
    ext,
    name,
    '+51987654321',
    `Av. ${ext}`,
    'Lima',
    item,
    1,
  ];
  const lines = (imp: { warnings: Line[] }) => imp.warnings.map((w) => [w.row, w.column, w.param, w.code, w.message]);
  const DUP = 'duplicate_external_order_id';
  const at = (r: number, message: string) => [r, 'external_order_id', 'external_order_id', DUP, message];

  it('warns of an external_order_id an order of the account and environment already has (naming it), and of one the file repeats further down (naming the row); both are created, as before', async () => {
    const file = csv([
      HEADER,
      row('DUP-1'), // 2
      row('DUP-2', 'Zapatos'), // 3: one order with row 4
      row('DUP-2', 'Medias'), // 4
      row('DUP-3'), // 5
      row('DUP-1'), // 6: a new order: only rows one after another make one
    ]);
    const first = await run(file);
    expect(first).toMatchObject({ status: 'succeeded', duplicates: 'create', created: 4, failed: 0, skipped: 0 });
    expect(lines(first)).toEqual([
      at(
        6,
        'external_order_id "DUP-1" is also on row 2, above: this row starts another order with it (only rows one after another make one order).',
      ),
    ]);
    expect(first.errors).toEqual([]);
    const [two] = await idsOf('DUP-2');
    const [three] = await idsOf('DUP-3');

    const second = await run(file);
    expect(second).toMatchObject({ status: 'succeeded', created: 4, failed: 0, skipped: 0 });
    const one = await idsOf('DUP-1');
    expect(one).toHaveLength(4);
    // DUP-1 had two orders before this import (of the first): the newest is named. Row 6 repeats row 2,
    // but that an order has it already is what matters.
    const made = await importOrders(second.id);
    const fromFirst = one.filter((id) => !made.includes(id));
    expect(fromFirst).toHaveLength(2);
    const named = (w: Line) => /order (ord_\w+) \(and 1 more\)/.exec(w.message)?.[1];
    expect(fromFirst, second.warnings[0].message).toContain(named(second.warnings[0]));
    expect(named(second.warnings[3])).toBe(named(second.warnings[0]));
    const which = named(second.warnings[0]);
    const taken = (ext: string, order: string) =>
      `external_order_id "${ext}" already belongs to ${order}: this row makes another order with it (upload with duplicates=skip to leave such orders out).`;
    expect(lines(second)).toEqual([
      at(2, taken('DUP-1', `order ${which} (and 1 more)`)),
      at(3, taken('DUP-2', `order ${two}`)),
      at(5, taken('DUP-3', `order ${three}`)),
      at(6, taken('DUP-1', `order ${which} (and 1 more)`)),
    ]);

    // Another account, and the other environment of the same account, have none of them.
    const other = await newMerchant(t, 'Otra');
    for (const key of [other.test, m.live]) {
      const elsewhere = await run(file, '', key);
      expect(elsewhere).toMatchObject({ created: 4, skipped: 0 });
      expect(elsewhere.warnings.map((w: Line) => w.row)).toEqual([6]);
    }
  });

  /** The orders an import created, from its row identities. */
  async function importOrders(importId: string): Promise<string[]> {
    const rows = await t.ctx.db
      .selectFrom('order_import_orders')
      .select('order_id')
      .where('import_id', '=', importId)
      .execute();
    return rows.map((r) => r.order_id);
  }

  it('?duplicates=skip leaves out an order whose external_order_id exists (counted in skipped, never created nor checked); the rest imports as before', async () => {
    const before = csv([HEADER, row('SK-1'), row('SK-2')]);
    expect(await run(before)).toMatchObject({ created: 2 });
    const [one] = await idsOf('SK-1');
    const [two] = await idsOf('SK-2');
    const file = csv([
      HEADER,
      row('SK-1'), // 2: skipped
      row('SK-2', 'Zapatos', ''), // 3: skipped with its order's row 4, whatever is wrong with it
      row('SK-2', 'Medias'), // 4
      row('SK-3'), // 5: new
      row('SK-4', 'Caja', ''), // 6: new, and rejected
      row('SK-3'), // 7: a repeat of row 5, not an order from before: created, with its warning
    ]);
    const done = await run(file, 'duplicates=skip');
    expect(done).toMatchObject({
      status: 'succeeded',
      duplicates: 'skip',
      total_rows: 6,
      processed_rows: 6,
      created: 2,
      failed: 1,
      skipped: 2,
    });
    expect(done.errors.map((e: Line) => [e.row, e.param])).toEqual([[6, 'customer.name']]);
    const skipped = (ext: string, order: string) =>
      `Skipped: external_order_id "${ext}" already belongs to order ${order}; no order was created from this row.`;
    expect(lines(done)).toEqual([
      at(2, skipped('SK-1', one as string)),
      at(3, skipped('SK-2', two as string)),
      at(
        7,
        'external_order_id "SK-3" is also on row 5, above: this row starts another order with it (only rows one after another make one order).',
      ),
    ]);
    expect(await idsOf('SK-1')).toEqual([one]);
    expect(await idsOf('SK-2')).toEqual([two]);
    expect(await idsOf('SK-3')).toHaveLength(2);
    // Skipped rows are not rejected ones: failed_rows.csv has row 6 alone.
    const failed: string = (await get(`/v1/order_imports/${done.id}/failed_rows.csv`)).raw.body;
    expect(failed.slice(1).trimEnd().split('\r\n')).toHaveLength(2);
    expect(failed).toContain('SK-4,,');

    // The parameter is checked like the others.
    const bad = await upload(t, m.test, file, 'text/csv', 'duplicates=ignore');
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'parameter_invalid', param: 'duplicates' });
  });

  it('all_or_nothing: a skipped order is no rejected row; with one, nothing is created but the warnings and skips are told', async () => {
    expect(await run(csv([HEADER, row('AN-1')]))).toMatchObject({ created: 1 });
    const [one] = await idsOf('AN-1');
    const failing = await run(
      csv([HEADER, row('AN-1'), row('AN-2'), row('AN-3', 'Caja', '')]),
      'mode=all_or_nothing&duplicates=skip',
    );
    expect(failing).toMatchObject({ status: 'failed', created: 0, failed: 1, skipped: 1 });
    expect(lines(failing)).toEqual([
      at(2, `Skipped: external_order_id "AN-1" already belongs to order ${one}; no order was created from this row.`),
    ]);
    expect(await idsOf('AN-2')).toEqual([]);
    const done = await run(csv([HEADER, row('AN-1'), row('AN-2')]), 'mode=all_or_nothing&duplicates=skip');
    expect(done).toMatchObject({ status: 'succeeded', created: 1, failed: 0, skipped: 1 });
    expect(await idsOf('AN-1')).toEqual([one]);
    expect(await idsOf('AN-2')).toHaveLength(1);
  });

  it('a crash mid-import changes nothing: the resumed run skips and warns as an uninterrupted one, never taking its own orders for duplicates', async () => {
    const file = csv([
      HEADER,
      row('RS-0'), // 2: an order from before: skipped
      row('RS-1'), // 3
      row('RS-2'), // 4
      row('RS-1'), // 5: the order of row 3 exists once the first batch commits; it is this import's own
      row('RS-3'), // 6
      row('RS-0'), // 7: skipped
      row('RS-4'), // 8
    ]);
    const outcome = async (merchant: Merchant, crash: boolean) => {
      const qs = 'duplicates=skip';
      expect(await run(csv([HEADER, row('RS-0')]), '', merchant.test)).toMatchObject({ created: 1 });
      const res = await upload(t, merchant.test, file, 'text/csv', qs);
      expect(res.status).toBe(202);
      if (crash) {
        // The first worker dies right after committing its first batch (rows 2 and 3), holding its lease…
        const die = () => {
          throw new Error('kill -9');
        };
        await expect(drain(t, { batchRows: 2, onProgress: die })).rejects.toThrow('kill -9');
        const mid = (await get(`/v1/order_imports/${res.body.id}`, merchant.test)).body;
        expect(mid).toMatchObject({ status: 'processing', processed_rows: 2, created: 1, skipped: 1 });
        // …and the next resumes once the lease has lapsed.
        await drain({ ctx: { ...t.ctx, clock: () => Date.now() + 120_000 } }, { batchRows: 2 });
      } else await drain(t, { batchRows: 2 });
      const done = (await get(`/v1/order_imports/${res.body.id}`, merchant.test)).body;
      const [before] = await idsOf('RS-0', merchant.test);
      const counts: Record<string, number> = {};
      for (const ext of ['RS-0', 'RS-1', 'RS-2', 'RS-3', 'RS-4'])
        counts[ext] = (await idsOf(ext, merchant.test)).length;
      return {
        status: done.status,
        counts: [done.processed_rows, done.created, done.failed, done.skipped],
        warnings: lines(done).map((l) => [...l.slice(0, 4), String(l[4]).replace(before as string, 'ord_BEFORE')]),
        orders: counts,
      };
    };
    const straight = await outcome(await newMerchant(t, 'Straight'), false);
    expect(straight).toEqual({
      status: 'succeeded',
      counts: [7, 5, 0, 2],
      warnings: [
        at(
          2,
          'Skipped: external_order_id "RS-0" already belongs to order ord_BEFORE; no order was created from this row.',
        ),
        at(
          5,
          'external_order_id "RS-1" is also on row 3, above: this row starts another order with it (only rows one after another make one order).',
        ),
        at(
          7,
          'Skipped: external_order_id "RS-0" already belongs to order ord_BEFORE; no order was created from this row.',
        ),
      ],
      orders: { 'RS-0': 1, 'RS-1': 2, 'RS-2': 1, 'RS-3': 1, 'RS-4': 1 },
    });
    expect(await outcome(await newMerchant(t, 'Crashed'), true)).toEqual(straight);
  });

  it('shows the first 1000 warnings, as it shows errors', async () => {
    // CAP-A, CAP-B, CAP-A, …: each row its own order, every one after the first two a repeat.
    const rows = Array.from({ length: 1003 }, (_, i) => row(i % 2 === 0 ? 'CAP-A' : 'CAP-B'));
    const done = await run(csv([HEADER, ...rows]));
    expect(done).toMatchObject({ status: 'succeeded', created: 1003, failed: 0 });
    expect(done.warnings).toHaveLength(1000);
    expect(done.warnings[0]).toMatchObject({ row: 4, message: expect.stringContaining('is also on row 2') });
    expect(done.warnings[999]).toMatchObject({ row: 1003, message: expect.stringContaining('is also on row 3') });
    const stored = await t.ctx.db
      .selectFrom('order_import_warnings')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('import_id', '=', done.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(1001);
  });

  it('looks the external ids of a batch up in one query on orders_external', async () => {
    // An account with orders, and statistics that say so (an empty table leaves PostgreSQL no reason to prefer one index).
    const busy = await newMerchant(t, 'Busy');
    const rows = Array.from({ length: 300 }, (_, i) => row(`IX-${i}`));
    expect(await run(csv([HEADER, ...rows]), '', busy.test)).toMatchObject({ created: 300 });
    if (engine === 'postgres') await sql`analyze orders`.execute(t.ctx.db);
    const q = externalIdsQuery(t.ctx.db, busy.accountId, 'test', ['IX-1', 'IX-2', 'IX-3']).compile();
    const plan = await explain(t.ctx.db, engine, q);
    const used = plan.nodes.filter((n) => n.table === 'orders' || n.index).map((n) => n.index);
    expect(used, plan.text).toContain('orders_external');
    expect(plan.text).not.toMatch(/SCAN orders\b(?! USING)|Seq Scan/);
  });

  it('an import from before the upgrade reads as duplicates create, none skipped, no warnings', async () => {
    await withImportBefore(engine, '040_cash_handover_voids', {}, async (db, upgrade) => {
      expect(await upgrade()).toContain('042_import_warnings');
      const imp = await db
        .selectFrom('order_imports')
        .select(['duplicates', 'skipped_orders'])
        .where('id', '=', 'imp_1')
        .executeTakeFirstOrThrow();
      expect(imp).toEqual({ duplicates: 'create', skipped_orders: 0 });
      expect(await db.selectFrom('order_import_warnings').selectAll().execute()).toEqual([]);
    });
  });
});
