import { csrfTokenFor, type Scope } from '../../shared/auth.js';
import type { AppContext } from '../../shared/context.js';
import { ApiError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { clientOf } from '../../shared/rate-limit.js';
import { iso } from '../../shared/time.js';
import { findCourier } from '../dispatch/repo.js';
import { presentCourier } from '../dispatch/service.js';
import { beginAttempt, LIMITS } from './lockout.js';
import * as repo from './repo.js';
import type { CourierSessionView, SignInCode } from './schemas.js';
import { hashCode, hashToken, newCode, newToken, normalizeCode } from './tokens.js';

/** DESIGN §9: a code is good for 15 minutes and once; a phone stays signed in for 30 days. */
export const CODE_TTL_MS = 15 * 60 * 1000;
export const COURIER_SESSION_MS = 30 * 24 * 60 * 60 * 1000;

async function courierInScope(ctx: AppContext, scope: Scope, id: string) {
  const courier = await findCourier(ctx.db, scope, id);
  if (!courier) throw notFound('courier', id);
  return courier;
}

/** `POST /v1/couriers/{id}/sign_in_codes`: the code is shown once (text and QR); only its hash is kept. */
export async function issueCode(ctx: AppContext, scope: Scope, courierId: string): Promise<SignInCode> {
  const courier = await courierInScope(ctx, scope, courierId);
  if (courier.status !== 'active') {
    throw new ApiError('parameter_invalid', `Courier ${courierId} is disabled; enable it first.`, 'id');
  }
  const now = ctx.clock();
  const code = newCode();
  const expiresAt = now + CODE_TTL_MS;
  await repo.insertCode(ctx.db, {
    id: newId('csc', now),
    courier_id: courier.id,
    code_hash: hashCode(code),
    created_at: now,
    expires_at: expiresAt,
    used_at: null,
  });
  // In the fragment: browsers never send it to a server, so the code stays out of access logs.
  const url = `${ctx.config.publicUrl.replace(/\/$/, '')}/courier/#code=${code}`;
  return { object: 'courier_sign_in_code', courier: courier.id, code, url, expires_at: iso(expiresAt) };
}

export interface StartedCourierSession {
  token: string;
  expiresAt: number;
  view: CourierSessionView;
}

/**
 * `POST /v1/courier_session {code}`: trades a code for a 30-day session. Attempts are counted per
 * client (an IPv4 address or an IPv6 /64) before the code is looked up, so guesses sent at once
 * are counted too: with 30^8 codes and 5 tries per 15 minutes, guessing is hopeless.
 */
export async function signInCourier(ctx: AppContext, input: string, ip: string): Promise<StartedCourierSession> {
  const attempt = await beginAttempt(ctx, [{ key: `code-address:${clientOf(ip)}`, limit: LIMITS.code }]);
  const code = normalizeCode(input);
  const now = ctx.clock();
  const taken = code === undefined ? undefined : await repo.takeCode(ctx.db, hashCode(code), now);
  const courier = taken && (await repo.courierRow(ctx.db, taken.courier_id));
  if (courier?.status !== 'active') {
    await attempt.failed();
    throw new ApiError('invalid_credentials', 'This sign-in code is not valid: it may be mistyped, used or expired.');
  }
  await attempt.succeeded();
  const token = newToken();
  const expiresAt = now + COURIER_SESSION_MS;
  await repo.insertCourierSession(ctx.db, {
    id: newId('cse', now),
    courier_id: courier.id,
    token_hash: hashToken(token),
    created_at: now,
    expires_at: expiresAt,
  });
  return { token, expiresAt, view: courierView(courier, token, expiresAt) };
}

function courierView(courier: Parameters<typeof presentCourier>[0], token: string, expiresAt: number) {
  return {
    object: 'courier_session' as const,
    courier: presentCourier(courier),
    csrf_token: csrfTokenFor(token),
    expires_at: iso(expiresAt),
  };
}

export async function courierSessionView(
  ctx: AppContext,
  courierId: string,
  token: string,
): Promise<CourierSessionView> {
  const s = await repo.courierSessionByHash(ctx.db, hashToken(token));
  const courier = await repo.courierRow(ctx.db, courierId);
  if (!s || !courier) throw new ApiError('session_invalid', 'Your session has ended; sign in again.');
  return courierView(courier, token, s.expires_at);
}

export async function endCourierSession(ctx: AppContext, sessionId: string): Promise<void> {
  await repo.deleteCourierSession(ctx.db, sessionId);
}

/** Ends every phone session of the courier (a lost phone); its codes stay single use and short-lived. */
export async function signOutEverywhere(ctx: AppContext, scope: Scope, courierId: string) {
  const courier = await courierInScope(ctx, scope, courierId);
  const ended = await repo.deleteCourierSessionsOf(ctx.db, courier.id);
  return { object: 'courier_sign_out' as const, courier: courier.id, sessions_ended: ended };
}
