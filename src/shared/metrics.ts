import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, type Metric, Registry } from 'prom-client';

/**
 * The process's own figures (CPU, memory, event loop, GC): facts about the process, so one
 * registry per process, written once here and never changed. Everything an instance counts
 * (requests, deliveries) goes on that instance's `ctx.metrics` instead.
 */
const processRegistry = new Registry();
collectDefaultMetrics({ register: processRegistry });

/** The metric named `name` on `registry`, created on first use (so two users of one instance share it). */
export function metricOn<M extends Metric>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

export function installMetrics(app: FastifyInstance, registry: Registry): void {
  const httpDuration = metricOn(
    registry,
    'ruta_http_request_duration_seconds',
    () =>
      new Histogram({
        name: 'ruta_http_request_duration_seconds',
        help: 'HTTP request duration by route and status',
        labelNames: ['method', 'route', 'status'] as const,
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
        registers: [registry],
      }),
  );
  const httpRequests = metricOn(
    registry,
    'ruta_http_requests_total',
    () =>
      new Counter({
        name: 'ruta_http_requests_total',
        help: 'HTTP requests by route and status',
        labelNames: ['method', 'route', 'status'] as const,
        registers: [registry],
      }),
  );
  app.addHook('onResponse', async (req, reply) => {
    // The route pattern, not the URL, keeps label cardinality bounded.
    const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    httpDuration.observe(labels, reply.elapsedTime / 1000);
    httpRequests.inc(labels);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    reply.type(registry.contentType);
    return `${await processRegistry.metrics()}\n${await registry.metrics()}`;
  });
}
