import { expect, it } from 'vitest';
import { client, describeEach, useApp, useOperator } from './helpers.js';

type Json = Record<string, any>;

/**
 * A path id is judged by its route's schema (IdParams: 1 to 100 characters), on every operation
 * alike: one over the bound is 422 naming the parameter, as any parameter out of bounds, and one
 * within it that names nothing is 404 resource_missing. The router never answers first with
 * "Unrecognized request URL" for a URL that it does recognise.
 */
describeEach('path ids', (engine) => {
  const t = useApp(engine);
  const op = useOperator(t);

  it('an id over 100 characters is 422 naming it on every operation that takes one, never route_not_found', async () => {
    const doc: Json = (await client(t.app)('GET', '/v1/openapi.json')).body;
    const call = client(t.app, op.key);
    const refused: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths as Json)) {
      if (!path.includes('{')) continue;
      for (const [method, operation] of Object.entries(ops as Json)) {
        const params = (operation.parameters ?? []).filter((p: Json) => p.in === 'path');
        // The document says so: a generated client knows the 422 it may meet.
        if (params.length > 0) expect(Object.keys(operation.responses), `${method} ${path}`).toContain('422');
        for (const p of params) {
          const url = path.replace(/\{[^}]+\}/g, (m) => (m === `{${p.name}}` ? 'a'.repeat(101) : 'x'));
          const res = await call(method.toUpperCase() as 'GET', url, method === 'get' ? undefined : {});
          const context = `${method.toUpperCase()} ${path} (${p.name})`;
          expect(res.status, context).toBeLessThan(500);
          if (res.status === 404) expect(res.body.error?.code, context).not.toBe('route_not_found');
          // The bound the document states is the one enforced (public tracking codes have none:
          // a malformed code is just an unknown parcel).
          if (p.schema.maxLength === 100 && res.status === 422) {
            expect(res.body.error, context).toMatchObject({ code: 'parameter_invalid', param: p.name });
            refused.push(`${method.toUpperCase()} ${path}`);
          }
        }
      }
    }
    // What an operator key may call is refused for the id itself (others answer 403 first).
    for (const op of [
      'GET /v1/orders/{id}',
      'POST /v1/orders/{id}/pickup',
      'GET /v1/routes/{id}',
      'GET /v1/couriers/{id}',
    ]) {
      expect(refused, op).toContain(op);
    }
  });

  it('an id of 100 characters is an id of nothing: 404 resource_missing', async () => {
    const call = client(t.app, op.key);
    for (const path of ['/v1/routes/', '/v1/orders/', '/v1/couriers/']) {
      const res = await call('GET', `${path}${'a'.repeat(100)}`);
      expect(res.status, path).toBe(404);
      expect(res.body.error, path).toMatchObject({ code: 'resource_missing', param: 'id' });
    }
    const long = await call('GET', `/v1/routes/${'a'.repeat(101)}`);
    expect(long.body.error.message).toBe('Invalid id: must be at most 100 characters.');
  });
});
