import { Counter, Gauge, Histogram } from 'prom-client';
import { registry } from '../../shared/metrics.js';

export const attemptsTotal = new Counter({
  name: 'ruta_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (success, failure)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const attemptFailures = new Counter({
  name: 'ruta_webhook_attempt_failures_total',
  help: 'Failed webhook attempts by error class (dns, connect, tls, timeout, http)',
  labelNames: ['class'] as const,
  registers: [registry],
});

export const deliveriesTotal = new Counter({
  name: 'ruta_webhook_deliveries_total',
  help: 'Webhook deliveries that reached a final state (succeeded, failed, cancelled)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const attemptDuration = new Histogram({
  name: 'ruta_webhook_attempt_duration_seconds',
  help: 'Webhook attempt latency, DNS to response headers',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const inFlightGauge = new Gauge({
  name: 'ruta_webhook_in_flight',
  help: 'Webhook attempts in flight in this process',
  registers: [registry],
});
