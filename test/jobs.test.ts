import { Registry } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createContext } from '../src/shared/context.js';
import { enqueue, type Job, JobFailed, type JobFailure, type JobKind, type JobRun } from '../src/shared/jobs/job.js';
import { installJobMetrics } from '../src/shared/jobs/metrics.js';
import { claimJobs } from '../src/shared/jobs/repo.js';
import { JobRunner } from '../src/shared/jobs/runner.js';
import { describeEach, startApp, type TestApp } from './helpers.js';

/** A promise opened from outside: holds a job's handler where the test wants it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
}

const LEASE_MS = 60_000;

/**
 * A kind whose handler logs what happens and, per job ref, waits for the test (`hold`) or throws
 * (`fail`). Each test makes its own kind, so no two tests share a job.
 */
function testKind(name: string, o: { concurrency?: number; maxAttempts?: number; leaseMs?: number } = {}) {
  const log: string[] = [];
  const failures: { ref: string | null; failure: JobFailure }[] = [];
  const holds = new Map<string, ReturnType<typeof gate>>();
  const starts = new Map<string, ReturnType<typeof gate>>();
  const aborts: unknown[] = [];
  const fail = new Map<string, Error>();
  const startOf = (ref: string) => {
    if (!starts.has(ref)) starts.set(ref, gate());
    return starts.get(ref)!;
  };
  const kind: JobKind = {
    kind: `test.${name}`,
    maxAttempts: o.maxAttempts ?? 2,
    leaseMs: o.leaseMs ?? LEASE_MS,
    concurrency: () => o.concurrency ?? 1,
    handler: () => ({
      async run(job: Job, run: JobRun) {
        const ref = job.ref ?? '';
        log.push(`start ${ref} #${job.attempts}`);
        startOf(ref).open();
        const hold = holds.get(ref);
        if (hold) {
          await Promise.race([
            hold.opened,
            new Promise((_, reject) =>
              run.signal.addEventListener('abort', () => {
                aborts.push(run.signal.reason);
                reject(run.signal.reason);
              }),
            ),
          ]);
        }
        const err = fail.get(ref);
        if (err) throw err;
        await run.complete(async () => {
          log.push(`done ${ref}`);
        });
      },
      async failed(_trx, job, failure) {
        failures.push({ ref: job.ref, failure });
        return () => log.push(`failed ${job.ref}`);
      },
      async returned(_trx, job) {
        return () => log.push(`returned ${job.ref}`);
      },
    }),
  };
  return {
    kind,
    log,
    failures,
    aborts,
    fail,
    hold: (ref: string) => {
      const g = gate();
      holds.set(ref, g);
      return g;
    },
    release: (ref: string) => holds.get(ref)?.open(),
    started: (ref: string) => startOf(ref).opened,
  };
}

describeEach('leased jobs', (engine) => {
  let t: TestApp;
  /** Every runner of this file reads this clock; tests move it past leases and back-offs. */
  let now = Date.UTC(2030, 0, 1);
  const runners: JobRunner[] = [];
  /** A runner over its own context (as another process would have), polling never: the test ticks it. */
  const runner = (kinds: JobKind[]) => {
    const ctx = createContext({ db: t.ctx.db, engine: t.ctx.engine }, t.config, { clock: () => now });
    const r = new JobRunner(ctx, kinds);
    runners.push(r);
    return r;
  };
  const add = (kind: JobKind, ref: string) => enqueue(t.ctx.db, kind, { ref, now: now++ });
  const row = (kind: JobKind, ref: string) =>
    t.ctx.db.selectFrom('jobs').selectAll().where('kind', '=', kind.kind).where('ref', '=', ref).executeTakeFirst();

  beforeAll(async () => {
    t = await startApp(engine, {}, { jobs: false });
  });
  afterAll(async () => {
    for (const r of runners) await r.stop();
    await t?.close();
  });

  it('runs at most `concurrency` jobs of a kind at once; the next waits queued until a slot frees', async () => {
    const k = testKind('bounded', { concurrency: 2 });
    for (const ref of ['a', 'b', 'c']) {
      k.hold(ref);
      await add(k.kind, ref);
    }
    const r = runner([k.kind]);
    expect(await r.tick()).toBe(2);
    await Promise.all([k.started('a'), k.started('b')]);
    expect(await r.tick()).toBe(0);
    expect(r.runningOf(k.kind.kind)).toBe(2);
    expect(await row(k.kind, 'c')).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null });
    for (const ref of ['a', 'b', 'c']) k.release(ref);
    await r.idle();
    // c started only once a or b had ended.
    expect(k.log.indexOf('start c #1')).toBeGreaterThan(Math.min(k.log.indexOf('done a'), k.log.indexOf('done b')));
    expect(k.log.filter((l) => l.startsWith('done')).sort()).toEqual(['done a', 'done b', 'done c']);
    // A finished job is deleted.
    expect(await row(k.kind, 'c')).toBeUndefined();
  });

  it('two runners claiming at once never take the same job', async () => {
    const k = testKind('shared', { concurrency: 3 });
    const refs = ['j0', 'j1', 'j2', 'j3', 'j4', 'j5', 'j6', 'j7'];
    for (const ref of refs) {
      k.hold(ref);
      await add(k.kind, ref);
    }
    const [a, b] = [runner([k.kind]), runner([k.kind])];
    const [na, nb] = await Promise.all([a.tick(), b.tick()]);
    expect(na + nb).toBe(6);
    const leased = await t.ctx.db
      .selectFrom('jobs')
      .select(['ref', 'lease_owner'])
      .where('kind', '=', k.kind.kind)
      .where('status', '=', 'running')
      .execute();
    expect(leased).toHaveLength(6);
    expect(new Set(leased.map((j) => j.lease_owner))).toEqual(new Set([a.owner, b.owner]));
    for (const ref of refs) k.release(ref);
    await Promise.all([a.idle(), b.idle()]);
    expect(k.log.filter((l) => l.startsWith('start')).sort()).toEqual(refs.map((r) => `start ${r} #1`));
  });

  it("a job whose lease lapsed is taken over; the first runner's late completion writes nothing", async () => {
    const k = testKind('takeover');
    const firstHold = k.hold('x');
    await add(k.kind, 'x');
    const first = runner([k.kind]);
    expect(await first.tick()).toBe(1);
    await k.started('x');
    const claimed = await row(k.kind, 'x');
    expect(claimed).toMatchObject({ status: 'running', attempts: 1, lease_owner: first.owner });
    // The first runner stops renewing (its process hangs or died); until the lease lapses nobody else may take it.
    const second = runner([k.kind]);
    now = claimed!.lease_expires_at! - 1;
    expect(await second.tick()).toBe(0);
    now = claimed!.lease_expires_at!;
    // The second claim runs the job again, as attempt 2, and finishes it.
    k.hold('x');
    expect(await second.tick()).toBe(1);
    expect(await row(k.kind, 'x')).toMatchObject({ attempts: 2, lease_owner: second.owner });
    k.release('x');
    await second.idle();
    expect(await row(k.kind, 'x')).toBeUndefined();
    // The first runner wakes up and tries to complete: refused, nothing of its work committed.
    firstHold.open();
    await first.idle();
    expect(k.log).toEqual(['start x #1', 'start x #2', 'done x']);
    expect(k.failures).toEqual([]);
  });

  it('a step commits on its own and renews the lease; a runner that lost the job writes no further step', async () => {
    const log: string[] = [];
    const firstHeld = gate();
    const firstRuns = gate();
    const kind: JobKind = {
      kind: 'test.steps',
      maxAttempts: 3,
      leaseMs: LEASE_MS,
      concurrency: () => 1,
      handler: () => ({
        async run(job: Job, run: JobRun) {
          await run.step(async () => log.push(`step 1 #${job.attempts}`));
          if (job.attempts === 1) {
            firstHeld.open();
            await firstRuns.opened;
          }
          await run.step(async () => log.push(`step 2 #${job.attempts}`));
          await run.complete(async () => log.push(`done #${job.attempts}`));
        },
        async failed() {
          return undefined;
        },
      }),
    };
    await add(kind, 's');
    const first = runner([kind]);
    const claimedAt = now;
    expect(await first.tick()).toBe(1);
    await firstHeld.opened;
    expect(log).toEqual(['step 1 #1']);
    // The step renewed the lease from the clock's time (the claim's, here): a full lease from now.
    now += 1000;
    expect((await row(kind, 's'))?.lease_expires_at).toBe(claimedAt + LEASE_MS);
    // Its worker hangs; the lease lapses and another runner takes the job over and finishes it.
    now = claimedAt + LEASE_MS;
    const second = runner([kind]);
    expect(await second.tick()).toBe(1);
    await second.idle();
    expect(log).toEqual(['step 1 #1', 'step 1 #2', 'step 2 #2', 'done #2']);
    // The first wakes: its next step finds the lease gone and writes nothing.
    firstRuns.open();
    await first.idle();
    expect(log).toEqual(['step 1 #1', 'step 1 #2', 'step 2 #2', 'done #2']);
    expect(await row(kind, 's')).toBeUndefined();
  });

  it('a job interrupted on every attempt fails with the reason instead of running again', async () => {
    const k = testKind('interrupted', { maxAttempts: 2 });
    await add(k.kind, 'y');
    // Two workers claim it and die (the state a killed process leaves: leased, attempt counted).
    for (const owner of ['jwk_dead1', 'jwk_dead2']) {
      const [job] = await claimJobs(t.ctx.db, t.ctx.engine, {
        kind: k.kind.kind,
        owner,
        now,
        leaseUntil: now + LEASE_MS,
        limit: 1,
      });
      expect(job?.ref).toBe('y');
      now += LEASE_MS;
    }
    const r = runner([k.kind]);
    expect(await r.tick()).toBe(1);
    await r.idle();
    expect(k.log).toEqual(['failed y']);
    expect(k.failures).toEqual([{ ref: 'y', failure: { reason: 'interrupted', attempts: 2 } }]);
    expect(await row(k.kind, 'y')).toMatchObject({
      status: 'failed',
      lease_owner: null,
      last_error: 'interrupted on every attempt',
    });
    now += LEASE_MS;
    expect(await r.tick()).toBe(0);
  });

  it('an error is retried after a back-off, then fails the job once its attempts are spent', async () => {
    const k = testKind('errors', { maxAttempts: 2 });
    k.fail.set('z', new Error('boom'));
    await add(k.kind, 'z');
    const r = runner([k.kind]);
    await r.idle();
    const retry = await row(k.kind, 'z');
    expect(retry).toMatchObject({ status: 'queued', attempts: 1, lease_owner: null, last_error: 'boom' });
    expect(retry!.run_at).toBe(now + 1000);
    expect(await r.tick()).toBe(0);
    now += 1000;
    await r.idle();
    expect(k.log).toEqual(['start z #1', 'start z #2', 'failed z']);
    expect(k.failures).toHaveLength(1);
    expect(k.failures[0]?.failure).toMatchObject({ reason: 'error', attempts: 2 });
    expect(await row(k.kind, 'z')).toMatchObject({ status: 'failed', last_error: 'boom' });
  });

  it('JobFailed fails the job at once, whatever attempts are left', async () => {
    const k = testKind('permanent', { maxAttempts: 5 });
    k.fail.set('p', new JobFailed('cannot ever work'));
    await add(k.kind, 'p');
    await runner([k.kind]).idle();
    expect(k.log).toEqual(['start p #1', 'failed p']);
    expect(await row(k.kind, 'p')).toMatchObject({ status: 'failed', attempts: 1, last_error: 'cannot ever work' });
  });

  it('stopping hands the jobs in hand back to the queue, their attempt not counted', async () => {
    const k = testKind('returned');
    k.hold('s');
    await add(k.kind, 's');
    const r = runner([k.kind]);
    expect(await r.tick()).toBe(1);
    await k.started('s');
    await r.stop();
    k.release('s');
    expect(k.aborts).toHaveLength(1);
    expect(k.log).toEqual(['start s #1', 'returned s']);
    expect(await row(k.kind, 's')).toMatchObject({ status: 'queued', attempts: 0, lease_owner: null });
    // Another runner (the next process) takes it at once, without waiting for a lease.
    const next = runner([k.kind]);
    await next.idle();
    expect(k.log).toEqual(['start s #1', 'returned s', 'start s #1', 'done s']);
  });

  it('renews the lease while the job runs, and stops a job whose lease another runner took', async () => {
    // A short lease: renewed every 10 ms (real time), each time to the test clock + 30 ms.
    const k = testKind('renewal', { leaseMs: 30 });
    k.hold('r');
    await add(k.kind, 'r');
    const r = runner([k.kind]);
    expect(await r.tick()).toBe(1);
    await k.started('r');
    now += 10_000;
    await expect.poll(async () => (await row(k.kind, 'r'))?.lease_expires_at).toBe(now + 30);
    expect(await runner([k.kind]).tick()).toBe(0);
    // Another worker holds it now (as after a takeover): the next renewal finds out and stops the job.
    await t.ctx.db
      .updateTable('jobs')
      .set({ lease_owner: 'jwk_other' })
      .where('kind', '=', k.kind.kind)
      .where('ref', '=', 'r')
      .execute();
    await r.idle();
    expect(k.aborts).toHaveLength(1);
    expect(String(k.aborts[0])).toMatch(/lease lost/);
    // Nothing written by the runner that lost it.
    expect(await row(k.kind, 'r')).toMatchObject({ status: 'running', lease_owner: 'jwk_other', attempts: 1 });
    expect(k.log).toEqual(['start r #1']);
  });

  it('/metrics shows each kind by state and the age of its oldest waiting job', async () => {
    const k = testKind('metrics', { maxAttempts: 1 });
    const registry = new Registry();
    installJobMetrics(registry, t.ctx.db, () => now, ['test.none', k.kind.kind]);
    const gauge = async (name: string, labels: string) =>
      Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(await registry.metrics())?.[1]);
    expect(await gauge('ruta_jobs', `kind="test.none",state="queued"`)).toBe(0);
    expect(await gauge('ruta_jobs_oldest_waiting_seconds', `kind="test.none"`)).toBe(0);
    const start = now;
    await add(k.kind, 'm1');
    await add(k.kind, 'm2');
    k.hold('m1');
    const r = runner([k.kind]);
    expect(await r.tick()).toBe(1);
    now = start + 30_000;
    expect(await gauge('ruta_jobs', `kind="${k.kind.kind}",state="running"`)).toBe(1);
    expect(await gauge('ruta_jobs', `kind="${k.kind.kind}",state="queued"`)).toBe(1);
    // m2, queued since start + 1 ms; m1 runs under a live lease.
    expect(await gauge('ruta_jobs_oldest_waiting_seconds', `kind="${k.kind.kind}"`)).toBe(29.999);
    // Past the lease, the running one counts as stalled, and it is the oldest waiting.
    now = start + LEASE_MS + 120_000;
    expect(await gauge('ruta_jobs', `kind="${k.kind.kind}",state="stalled"`)).toBe(1);
    expect(await gauge('ruta_jobs_oldest_waiting_seconds', `kind="${k.kind.kind}"`)).toBe((LEASE_MS + 120_000) / 1000);
    k.release('m1');
    await r.idle();
    expect(await gauge('ruta_jobs', `kind="${k.kind.kind}",state="stalled"`)).toBe(0);
    expect(await gauge('ruta_jobs', `kind="${k.kind.kind}",state="queued"`)).toBe(0);
  });
});
