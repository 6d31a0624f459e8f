import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricOn } from '../../shared/metrics.js';

/**
 * The dispatcher's metrics on one instance's registry (`ctx.metrics`). Created on first use per
 * registry, so two dispatchers of one instance add up, and two instances in one process never do.
 */
export class WebhookMetrics {
  readonly attemptsTotal: Counter<'outcome'>;
  readonly attemptFailures: Counter<'class'>;
  readonly deliveriesTotal: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly inFlight: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attemptsTotal = metricOn(
      registry,
      'ruta_webhook_attempts_total',
      () =>
        new Counter({
          name: 'ruta_webhook_attempts_total',
          help: 'Webhook delivery attempts by outcome (success, failure)',
          labelNames: ['outcome'] as const,
          registers,
        }),
    );
    this.attemptFailures = metricOn(
      registry,
      'ruta_webhook_attempt_failures_total',
      () =>
        new Counter({
          name: 'ruta_webhook_attempt_failures_total',
          help: 'Failed webhook attempts by error class (dns, connect, tls, timeout, http)',
          labelNames: ['class'] as const,
          registers,
        }),
    );
    this.deliveriesTotal = metricOn(
      registry,
      'ruta_webhook_deliveries_total',
      () =>
        new Counter({
          name: 'ruta_webhook_deliveries_total',
          help: 'Webhook deliveries that reached a final state (succeeded, failed, cancelled)',
          labelNames: ['outcome'] as const,
          registers,
        }),
    );
    this.attemptDuration = metricOn(
      registry,
      'ruta_webhook_attempt_duration_seconds',
      () =>
        new Histogram({
          name: 'ruta_webhook_attempt_duration_seconds',
          help: 'Webhook attempt latency, DNS to response headers',
          labelNames: ['outcome'] as const,
          buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers,
        }),
    );
    this.inFlight = metricOn(
      registry,
      'ruta_webhook_in_flight',
      () =>
        new Gauge({ name: 'ruta_webhook_in_flight', help: 'Webhook attempts in flight in this instance', registers }),
    );
  }
}
