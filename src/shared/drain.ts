import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { ApiError } from './errors.js';

/** How long app.close() waits for requests still being handled before it gives up on them. */
export const DRAIN_TIMEOUT_MS = 10_000;

declare module 'fastify' {
  interface FastifyReply {
    /**
     * For a handler that writes its response itself (`reply.hijack()`, the tracking streams): the
     * answer has started, so a client hanging up from now on ends the request here too (otherwise
     * the sign is Fastify's onSend, which a hijacked reply never runs).
     */
    markAnswered(): void;
  }
}

interface Progress {
  aborted: boolean;
  sent: boolean;
}

/**
 * Makes app.close() wait for the requests still being handled, so the database closes only after
 * them. Fastify's close returns once the sockets are gone, but a request whose client hung up keeps
 * running its handler and its queries; closing the database under it fails with "driver has already
 * been destroyed". Requests that arrive while closing get the Error body with 503 (Fastify's own 503
 * has another shape, hence `return503OnClosing: false` in app.ts).
 */
export function installDrain(app: FastifyInstance, timeoutMs = DRAIN_TIMEOUT_MS): void {
  const active = new Map<FastifyRequest, Progress>();
  let closing = false;
  let onIdle: (() => void) | undefined;
  const release = (req: FastifyRequest) => {
    if (active.delete(req) && active.size === 0) onIdle?.();
  };

  app.addHook('onRequest', async (req, reply) => {
    active.set(req, { aborted: false, sent: false });
    if (closing) {
      reply.header('Connection', 'close');
      throw new ApiError('service_unavailable', 'The server is shutting down; retry the request.', undefined, {
        'Retry-After': '1',
      });
    }
  });
  // The normal end: the response was written.
  app.addHook('onResponse', async (req) => release(req));
  // A client that hung up gets no onResponse: the work ends when the answer is ready (below), or
  // at once for an unknown path, which does no work.
  app.addHook('onRequestAbort', async (req) => {
    const p = active.get(req);
    if (!p) return;
    p.aborted = true;
    if (p.sent || req.routeOptions.url === undefined) release(req);
  });
  // Route-level onSend hooks run after every plugin's (idempotency stores its answer there): the last step.
  const sent: onSendHookHandler = async (req, _reply, payload) => {
    const p = active.get(req);
    if (p) {
      p.sent = true;
      if (p.aborted) release(req);
    }
    return payload;
  };
  app.decorateReply('markAnswered', function (this: FastifyReply) {
    const p = active.get(this.request);
    if (!p) return;
    p.sent = true;
    if (p.aborted) release(this.request);
  });
  app.addHook('onRoute', (route) => {
    const own = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...own, sent];
  });

  app.addHook('preClose', async () => {
    closing = true;
  });
  // onClose hooks run after Fastify has closed the server, newest first; this one waits for the stragglers.
  app.addHook('onClose', async () => {
    if (active.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      onIdle = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  });
}
