import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { actorOf, principalOf } from './auth.js';
import type { AppContext } from './context.js';
import { ApiError } from './errors.js';
import * as repo from './idempotency-repo.js';
import { sha256Hex } from './ids.js';

/** Keys are kept for 24 h, as with Stripe. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim older than this belongs to a crashed instance and may be taken over. */
export const IDEMPOTENCY_LOCK_MS = 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;
/** Share of claims that also sweep expired rows; the sweep is one indexed range delete. */
const PURGE_PROBABILITY = 0.01;

interface Claim extends repo.KeyRef {
  lockedAt: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
  interface FastifyContextConfig {
    /**
     * The answer holds a secret that Ruta otherwise keeps only hashed (an API key, an account's
     * keys, an invitation link, a courier's sign-in code): a replay must not come from a stored plain-text copy.
     */
    answersSecret?: boolean;
  }
}

/** What "the same request" means: method, path with query, and the exact body bytes (or an upload's hash). */
export function fingerprint(method: string, url: string, rawBody: string | undefined): string {
  return sha256Hex(`${method.toUpperCase()}\n${url}\n${rawBody ?? ''}`);
}

/**
 * Merchant keys and merchant users share one key space per account; operator keys, carrier users
 * and courier sessions are individual, so each is its own owner.
 */
export function ownerOf(req: FastifyRequest): string {
  const p = principalOf(req);
  return p.role === 'merchant' && p.accountId ? p.accountId : actorOf(p);
}

function headerKey(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX) {
    throw new ApiError(
      'parameter_invalid',
      `The Idempotency-Key header must be 1 to ${IDEMPOTENCY_KEY_MAX} characters long.`,
      'Idempotency-Key',
    );
  }
  return key;
}

function replay(reply: FastifyReply, status: number, body: string): void {
  // API responses are all JSON; the stored text is sent byte for byte, without re-serialising.
  reply.code(status).header('Idempotent-Replayed', 'true').type('application/json; charset=utf-8').send(body);
}

/**
 * Claims the key, or answers from what the first request stored. Runs as a preHandler, so requests
 * that fail authentication, rate limiting or validation never touch the key (Stripe does the same:
 * nothing is stored unless the endpoint started executing, and the client may fix and resend).
 */
async function claimOrReplay(ctx: AppContext, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const key = headerKey(req);
  if (key === undefined) return false;
  const ref: repo.KeyRef = { owner: ownerOf(req), mode: principalOf(req).mode, key };
  const fp = fingerprint(req.method, req.url, req.rawBody);
  // A few rounds cover a row that vanishes between our insert and our read (released after a 5xx, or purged).
  for (let round = 0; round < 3; round++) {
    const now = ctx.clock();
    const fresh = { fingerprint: fp, locked_at: now, expires_at: now + IDEMPOTENCY_TTL_MS };
    if (await repo.tryInsert(ctx.db, { ...ref, ...fresh, response_status: null, response_body: null })) {
      req.idempotencyClaim = { ...ref, lockedAt: now };
      if (Math.random() < PURGE_PROBABILITY) await purge(ctx, req, now);
      return false;
    }
    const row = await repo.find(ctx.db, ref);
    if (!row) continue;
    const expired = row.expires_at <= now;
    const stale = row.response_status === null && row.locked_at <= now - IDEMPOTENCY_LOCK_MS;
    if (expired || (stale && row.fingerprint === fp)) {
      if (await repo.takeOver(ctx.db, ref, row.locked_at, fresh)) {
        req.idempotencyClaim = { ...ref, lockedAt: now };
        return false;
      }
      continue;
    }
    if (row.fingerprint !== fp) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request.',
        'Idempotency-Key',
      );
    }
    if (row.response_status === null || row.response_body === null) {
      throw new ApiError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed. Retry after it completes.',
        'Idempotency-Key',
      );
    }
    replay(reply, row.response_status, row.response_body);
    return true;
  }
  throw new ApiError(
    'idempotency_key_in_use',
    'A request with this Idempotency-Key is being processed concurrently. Retry shortly.',
    'Idempotency-Key',
  );
}

async function purge(ctx: AppContext, req: FastifyRequest, now: number): Promise<void> {
  try {
    await repo.purgeExpired(ctx.db, now);
  } catch (err) {
    req.log.warn({ err }, 'idempotency purge failed');
  }
}

/** Stores the response for replays, or frees the key after a 5xx so the client can retry. */
async function settle(ctx: AppContext, req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const claim = req.idempotencyClaim;
  if (!claim) return;
  req.idempotencyClaim = undefined;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  try {
    if (reply.statusCode >= 500 || body === undefined) await repo.release(ctx.db, claim, claim.lockedAt);
    else if (req.routeOptions.config.answersSecret && reply.statusCode < 300) {
      // The key stays taken (a retry must not create a second key or link), but what a replay gets
      // is an error that says so, never the secret.
      await repo.complete(ctx.db, claim, claim.lockedAt, 409, withheldBody(String(req.id)));
    } else await repo.complete(ctx.db, claim, claim.lockedAt, reply.statusCode, body);
  } catch (err) {
    // The work is done and the client deserves its answer; the claim lapses after IDEMPOTENCY_LOCK_MS.
    req.log.error({ err }, 'could not store the idempotent response');
  }
}

function withheldBody(requestId: string): string {
  return JSON.stringify({
    error: {
      type: 'invalid_request_error',
      code: 'idempotent_secret_withheld',
      message:
        'The request with this Idempotency-Key succeeded, but its answer held a secret that is shown only once and is not kept for replays. List the objects to see what was created; revoke or roll it if the secret was lost.',
      param: 'Idempotency-Key',
      request_id: requestId,
    },
  });
}

/** Adds Idempotency-Key handling to every POST of `scope`; call after installAuth. */
export function installIdempotency(scope: FastifyInstance, ctx: AppContext): void {
  scope.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST') return;
    if (await claimOrReplay(ctx, req, reply)) return reply;
  });
  scope.addHook('onSend', async (req, reply, payload) => {
    await settle(ctx, req, reply, payload);
    return payload;
  });
}
