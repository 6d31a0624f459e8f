import { expect } from 'vitest';
import { client, type TestApp } from './helpers.js';

/**
 * POST /v1/route_plans with `body` as `key`, the app's job runner drained, and the plan read back:
 * accepted (202) and succeeded, or the test fails naming why.
 */
export async function solvedPlan<P>(t: TestApp, key: string, body: Record<string, unknown>): Promise<P> {
  const call = client(t.app, key);
  const created = await call('POST', '/v1/route_plans', body);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  await t.jobs.idle();
  const done = (await call('GET', `/v1/route_plans/${created.body.id}`)).body;
  expect(done.status, done.failure_message ?? '').toBe('succeeded');
  return done as P;
}
