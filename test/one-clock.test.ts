import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { revoke } from '../src/features/accounts/service.js';
import { Agents, send } from '../src/features/webhooks/sender.js';
import { createContext } from '../src/shared/context.js';
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
import { tinyPng, upload } from './lifecycle-helpers.js';
import { Receiver } from './webhook-receiver.js';

// Issue #18 §2, "one clock": every time src/ reads goes through ctx.clock (or a Clock it was given),
// so a test that holds or moves ctx.clock moves all of it. Each test below failed while that piece
// still read Date.now().

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** A fixed instant well away from the machine's time, so a piece reading the machine's clock shows. */
const T0 = Date.UTC(2031, 4, 6, 12, 0, 0);

class HeldClock {
  t = T0;
  now = (): number => this.t;
}

describe('one clock', () => {
  it('src/ reads the machine clock in one place: systemClock in shared/context.ts', () => {
    const found: string[] = [];
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // performance.now() measures durations (timeouts, solver budgets), not the time of day.
          if (/\bDate\.now\(\)|\bnew Date\(\)/.test(line.replace(/\/\/.*$/, ''))) found.push(`${path}:${i + 1}`);
        });
    }
    // One line of context.ts: systemClock's (its line number moves as the file changes).
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^src\/shared\/context\.ts:\d+$/);
    expect(
      readFileSync(join(ROOT, 'src/shared/context.ts'), 'utf8').split('\n')[Number(found[0]?.split(':')[1]) - 1],
    ).toMatch(/Date\.now\(\)/);
  });

  it("a webhook's Retry-After date is read against the dispatcher's clock", async () => {
    const rx = await new Receiver().start();
    const agents = new Agents(2);
    try {
      const clock = new HeldClock();
      rx.respond = () => ({ status: 503, headers: { 'retry-after': new Date(T0 + 120_000).toUTCString() } });
      const r = await send(
        { url: rx.url('/busy'), body: '{}', headers: {}, timeoutMs: 5000, allowInsecure: true, clock: clock.now },
        agents,
      );
      expect(r).toMatchObject({ ok: false, status: 503, retryAfterMs: 120_000 });
    } finally {
      agents.destroy();
      await rx.close();
    }
  });
});

describeEach('one clock', (engine) => {
  const clock = new HeldClock();
  let t: TestApp;
  let m: Merchant;
  let op: string;

  beforeAll(async () => {
    t = await startApp(engine, { RUTA_FILE_URL_TTL_SECONDS: '600' }, { clock: clock.now });
    m = await newMerchant(t);
    op = await newOperator(t);
  });
  afterAll(async () => t?.close());

  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, '');

  it('a file link expires when ctx.clock passes its expiry', async () => {
    clock.t = T0;
    const f = (await upload(t, op, 'photo', tinyPng())).body;
    expect(new URL(f.url).searchParams.get('expires')).toBe(String(T0 / 1000 + 600));
    expect((await t.app.inject({ method: 'GET', url: local(f.url) })).statusCode).toBe(200);
    clock.t = T0 + 601_000;
    const late = await t.app.inject({ method: 'GET', url: local(f.url) });
    expect(late.statusCode).toBe(403);
    expect(JSON.parse(late.body).error.code).toBe('file_link_invalid');
  });

  it('the link secret belongs to the app instance, not to the process or the database handle', async () => {
    clock.t = T0;
    const f = (await upload(t, op, 'photo', tinyPng())).body;
    const first = (await client(t.app, op)('GET', `/v1/files/${f.id}`)).body.url;
    // Another instance over the same database handle, after the stored secret changed: it reads the
    // setting itself (as another process would) instead of sharing this instance's copy.
    await t.ctx.db
      .updateTable('settings')
      .set({ value: 'rotated-secret' })
      .where('key', '=', 'files.link_secret')
      .execute();
    const other = await buildApp(createContext({ db: t.ctx.db, engine: t.ctx.engine }, t.config, { clock: clock.now }));
    try {
      const second = (await client(other, op)('GET', `/v1/files/${f.id}`)).body.url;
      expect(new URL(second).searchParams.get('expires')).toBe(new URL(first).searchParams.get('expires'));
      expect(new URL(second).searchParams.get('signature')).not.toBe(new URL(first).searchParams.get('signature'));
      expect((await other.inject({ method: 'GET', url: local(second) })).statusCode).toBe(200);
      // This instance still signs with what it read first.
      expect((await t.app.inject({ method: 'GET', url: local(first) })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('accounts and keys are stamped, revoked and cached by ctx.clock', async () => {
    clock.t = T0;
    const a = await newMerchant(t, 'Stamped');
    const row = await t.ctx.db
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', a.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(row.created_at)).toBe(T0);
    const keys = await t.ctx.db.selectFrom('api_keys').selectAll().where('account_id', '=', a.accountId).execute();
    expect(keys.map((k) => Number(k.created_at))).toEqual([T0, T0]);
    clock.t = T0 + 5000;
    expect(await revoke(t.ctx, keys[0].id)).toBe(true);
    const revoked = await t.ctx.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', keys[0].id)
      .executeTakeFirstOrThrow();
    expect(Number(revoked.revoked_at)).toBe(T0 + 5000);

    // The account row is kept for 30 s of ctx.clock (ACCOUNT_CACHE_TTL_MS), then read again.
    const quote = async () => (await client(t.app, m.test)('POST', '/v1/orders/quote', validOrder())).body.currency;
    clock.t = T0 + 10_000;
    expect(await quote()).toBe('USD');
    await t.ctx.db.updateTable('accounts').set({ currency: 'EUR' }).where('id', '=', m.accountId).execute();
    expect(await quote()).toBe('USD');
    clock.t += 30_001;
    expect(await quote()).toBe('EUR');
  });
});
