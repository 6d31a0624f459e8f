import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JOBS } from '../src/app.js';
import { loadConfig } from '../src/shared/config.js';
import { createContext } from '../src/shared/context.js';
import { openDatabase } from '../src/shared/db/index.js';
import { migrate } from '../src/shared/db/migrate.js';
import { claimJobs } from '../src/shared/jobs/repo.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { RUTA_CLI } from './cli-run.js';
import {
  client,
  describeEach,
  freshDatabaseUrl,
  newMerchant,
  newOperator,
  startApp,
  type TestApp,
  validOrder,
} from './helpers.js';

// Issue #18, defect 9: route plans ran inside the API process without limit, and a restart left
// them `running` forever. Now each plan's solve is a leased job (src/shared/jobs).

const ROOT = join(import.meta.dirname, '..');
const KIND = 'route_plan.solve';
/** Starting Node takes a second or more on a busy machine. */
const SLOW = 180_000;

interface Child {
  base: string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** `ruta serve [flags]` from source on the test's database, as an operator would start it. */
async function serve(t: TestApp, ...flags: string[]): Promise<Child> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...RUTA_CLI, 'serve', ...flags], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: t.config.databaseUrl,
      RUTA_FILES_URL: t.config.filesUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      RUTA_LOG_LEVEL: 'info',
    },
  });
  let out = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // The start-up log line names the port it bound (PORT=0: any free one).
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"port":(\d+)[^\n]*"msg":"ruta listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code) => reject(new Error(`ruta serve exited (${code}) before listening:\n${out}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    kill: async (signal) => {
      child.kill(signal);
      await exited;
    },
  };
}

/** client() over HTTP to a child process: same shape as over app.inject. */
function http(base: string, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
  };
}

describeEach('route plans as leased jobs', (engine) => {
  let t: TestApp;
  let op: string;
  let body: { date: string; depot: string; couriers: { courier_id: string }[]; order_ids: string[] };
  const runners: JobRunner[] = [];

  /**
   * A job runner like `ruta worker`'s, over its own context (as another process has), at `clock`,
   * recording the route_plan live messages it publishes as "id status".
   */
  const worker = (clock: () => number = () => Date.now(), env: Record<string, string> = {}) => {
    const config = loadConfig({ RUTA_LOG_LEVEL: 'silent', ...env, DATABASE_URL: t.config.databaseUrl });
    const ctx = createContext({ db: t.ctx.db, engine: t.ctx.engine }, config, { clock });
    const runner = new JobRunner(ctx, JOBS);
    runners.push(runner);
    const published: string[] = [];
    const waiting = new Map<string, () => void>();
    ctx.live.subscribe((m) => {
      if (m.kind !== 'route_plan') return;
      const data = m.data as { id: string; status: string };
      const line = `${data.id} ${data.status}`;
      published.push(line);
      waiting.get(line)?.();
    });
    /** Resolves when the runner publishes `line` ("id status"). */
    const until = (line: string) =>
      published.includes(line) ? Promise.resolve() : new Promise<void>((r) => waiting.set(line, r));
    return { runner, published, until };
  };
  const job = (planId: string) =>
    t.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', KIND).where('ref', '=', planId).executeTakeFirst();
  const plan = async (id: string) => (await client(t.app, op)('GET', `/v1/route_plans/${id}`)).body;
  const create = async (timeLimitMs: number) => {
    const res = await client(t.app, op)('POST', '/v1/route_plans', { ...body, time_limit_ms: timeLimitMs });
    expect(res.status).toBe(202);
    expect(res.body.status).toBe('queued');
    return res.body.id as string;
  };

  beforeAll(async () => {
    // No runner in this app: each test decides who runs the plans, and when.
    t = await startApp(engine, {}, { jobs: false });
    const m = await newMerchant(t);
    op = await newOperator(t, 'test');
    const call = client(t.app, op);
    const depot = (await call('POST', '/v1/depots', { name: 'Main', lat: -12.12, lng: -77.03 })).body;
    const courier = (await call('POST', '/v1/couriers', { name: 'Luis' })).body;
    const orders: string[] = [];
    for (let i = 0; i < 6; i++) {
      const at = { address: `Av. Larco ${i}`, city: 'Lima', lat: -12.12 + i * 0.003, lng: -77.03 - i * 0.002 };
      const res = await client(t.app, m.test)('POST', '/v1/orders', validOrder({ delivery_address: at }));
      expect(res.status).toBe(201);
      orders.push(res.body.id);
    }
    body = { date: '2030-01-02', depot: depot.id, couriers: [{ courier_id: courier.id }], order_ids: orders };
  });
  afterAll(async () => {
    for (const r of runners) await r.stop();
    await t?.close();
  });

  it(
    'a plan whose process was killed mid-solve is taken over once its lease lapses, and finishes',
    async () => {
      const server = await serve(t);
      let killed = false;
      try {
        const call = http(server.base, op);
        const created = await call('POST', '/v1/route_plans', { ...body, time_limit_ms: 5000 });
        expect(created.status).toBe(202);
        const id: string = created.body.id;
        // The process solving it dies (kill -9) while the solve runs.
        await expect
          .poll(async () => (await call('GET', `/v1/route_plans/${id}`)).body.status, { timeout: 60_000 })
          .toBe('running');
        await server.kill('SIGKILL');
        killed = true;
        const left = await job(id);
        expect(left).toMatchObject({ status: 'running', attempts: 1 });
        expect((await plan(id)).status).toBe('running');

        // Another worker takes nothing while the dead one's lease runs, then takes the plan over.
        const lapse = left!.lease_expires_at!;
        expect(await worker(() => lapse - 1).runner.tick()).toBe(0);
        const next = worker(() => lapse);
        await next.runner.idle();
        const done = await plan(id);
        expect(done).toMatchObject({ status: 'succeeded', progress: 1, failure_message: null });
        const planned = done.routes.flatMap((r: { stops: { order_id: string }[] }) => r.stops.map((s) => s.order_id));
        expect(planned.sort()).toEqual([...body.order_ids].sort());
        expect(next.published[0]).toBe(`${id} running`);
        expect(next.published.at(-1)).toBe(`${id} succeeded`);
        expect(await job(id)).toBeUndefined();
      } finally {
        if (!killed) await server.kill('SIGKILL');
      }
    },
    SLOW,
  );

  it('a plan interrupted on both of its attempts fails with the reason, never stuck running', async () => {
    const id = await create(100);
    // Twice a worker claims it and dies before finishing (what kill -9 leaves behind, as above).
    let now = Date.now();
    for (const owner of ['jwk_dead1', 'jwk_dead2']) {
      const claimed = await claimJobs(t.ctx.db, t.ctx.engine, {
        kind: KIND,
        owner,
        now,
        leaseUntil: now + 30_000,
        limit: 10,
      });
      expect(claimed.map((j) => j.ref)).toEqual([id]);
      now += 30_000;
    }
    const w = worker(() => now);
    await w.runner.idle();
    const failed = await plan(id);
    expect(failed).toMatchObject({ status: 'failed', routes: null });
    expect(failed.failure_message).toBe(
      'The plan was interrupted 2 times before it finished (the process solving it stopped), so it was not started again.',
    );
    // Not solved a third time: the only message is the failure.
    expect(w.published).toEqual([`${id} failed`]);
    expect(await job(id)).toMatchObject({ status: 'failed', attempts: 3, lease_owner: null });
  });

  it(
    'with RUTA_PLAN_CONCURRENCY=1 the second plan stays queued until the first has ended',
    async () => {
      const a = await create(1000);
      const b = await create(100);
      const w = worker(undefined, { RUTA_PLAN_CONCURRENCY: '1' });
      // One claim takes one plan of the two due, the older; the other stays queued.
      expect(await w.runner.tick()).toBe(1);
      expect(w.runner.runningOf(KIND)).toBe(1);
      expect((await plan(b)).status).toBe('queued');
      expect(await job(b)).toMatchObject({ status: 'queued', attempts: 0 });
      await w.runner.idle();
      expect([(await plan(a)).status, (await plan(b)).status]).toEqual(['succeeded', 'succeeded']);
      // b started once a had ended.
      expect(w.published.indexOf(`${b} running`)).toBeGreaterThan(w.published.indexOf(`${a} succeeded`));

      // The variable is the bound: with 2, one claim takes both.
      const c = await create(100);
      const d = await create(100);
      const two = worker(undefined, { RUTA_PLAN_CONCURRENCY: '2' });
      expect(await two.runner.tick()).toBe(2);
      await two.runner.idle();
      expect([(await plan(c)).status, (await plan(d)).status]).toEqual(['succeeded', 'succeeded']);
    },
    SLOW,
  );

  it('a worker that stops cleanly hands its plan back: queued again, no attempt spent', async () => {
    const id = await create(60_000);
    const w = worker();
    expect(await w.runner.tick()).toBe(1);
    await w.until(`${id} running`);
    await w.runner.stop();
    expect(await plan(id)).toMatchObject({ status: 'queued', progress: 0 });
    expect(await job(id)).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null });
    expect(w.published.at(-1)).toBe(`${id} queued`);
    // It is the next worker's to run (not solved here: its time limit is a minute).
    await t.ctx.db.deleteFrom('jobs').where('ref', '=', id).execute();
  });

  it('plans a restart stranded before the upgrade (queued, running) get their job and end', async () => {
    const tdb = await freshDatabaseUrl(engine);
    const database = openDatabase(tdb.url);
    try {
      await migrate(database, { to: '011_claim_plan' });
      const at = Date.UTC(2030, 0, 1);
      await database.db
        .insertInto('depots')
        .values({
          id: 'dep_1',
          mode: 'test',
          name: 'D',
          lat: -12,
          lng: -77,
          address: null,
          timezone: 'UTC',
          created_at: at,
          updated_at: at,
        })
        .execute();
      const request = JSON.stringify({
        objective: 'min_distance',
        time_limit_ms: 100,
        seed: 1,
        couriers: [],
        planned: [],
        order_ids: [],
      });
      const stranded = {
        running: 'rplan_01JZZZZZZZZZZZZZZZZZZZZZZ1',
        queued: 'rplan_01JZZZZZZZZZZZZZZZZZZZZZZ2',
        succeeded: 'rplan_01JZZZZZZZZZZZZZZZZZZZZZZ3',
      };
      for (const [status, id] of Object.entries(stranded)) {
        await database.db
          .insertInto('route_plans')
          .values({
            id,
            mode: 'test',
            depot_id: 'dep_1',
            date: '2030-01-01',
            status: status as 'queued',
            progress: 0.5,
            request,
            versions: '{}',
            result: null,
            failure: null,
            committed_at: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
      }
      expect(await migrate(database)).toContain('013_jobs');
      const jobs = await database.db.selectFrom('jobs').select(['ref', 'status', 'attempts']).orderBy('ref').execute();
      // The running one was interrupted once already; the ended one needs nothing.
      expect(jobs).toEqual([
        { ref: stranded.running, status: 'queued', attempts: 1 },
        { ref: stranded.queued, status: 'queued', attempts: 0 },
      ]);
      const config = loadConfig({ RUTA_LOG_LEVEL: 'silent', DATABASE_URL: tdb.url });
      const runner = new JobRunner(createContext(database, config, { clock: () => at + 1 }), JOBS);
      await runner.idle();
      const plans = await database.db.selectFrom('route_plans').select(['id', 'status']).orderBy('id').execute();
      expect(plans.map((p) => p.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
      expect(await database.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    } finally {
      await database.close();
      await tdb.drop();
    }
  });

  it(
    '`ruta serve --api-only` solves nothing: the plan waits queued (its /metrics says so) until a worker runs it',
    async () => {
      const server = await serve(t, '--api-only');
      try {
        const call = http(server.base, op);
        const created = await call('POST', '/v1/route_plans', { ...body, time_limit_ms: 100 });
        expect(created.status).toBe(202);
        const id: string = created.body.id;
        const metrics = await fetch(`${server.base}/metrics`).then((r) => r.text());
        expect(metrics).toContain(`ruta_jobs{kind="${KIND}",state="queued"} 1`);
        expect(metrics).toContain(`ruta_jobs{kind="${KIND}",state="running"} 0`);
        expect(metrics).toMatch(new RegExp(`^ruta_jobs_oldest_waiting_seconds\\{kind="${KIND}"\\} \\d`, 'm'));
        expect((await call('GET', `/v1/route_plans/${id}`)).body.status).toBe('queued');
        // A worker process (here: a runner over its own context) solves it; the API instance shows the result.
        await worker().runner.idle();
        expect((await call('GET', `/v1/route_plans/${id}`)).body.status).toBe('succeeded');
        const after = await fetch(`${server.base}/metrics`).then((r) => r.text());
        expect(after).toContain(`ruta_jobs{kind="${KIND}",state="queued"} 0`);
      } finally {
        await server.kill('SIGTERM');
      }
    },
    SLOW,
  );
});
