import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { buildHeaders, decideOutcome } from '../src/features/webhooks/attempt.js';
import { nextAttemptAt } from '../src/features/webhooks/retry.js';
import { parseRetryAfter } from '../src/features/webhooks/sender.js';
import { hmacHex, newSecret, signatureHeader, standardKey } from '../src/features/webhooks/signature.js';
import { isPublicAddress, pinnedLookup, vetTarget } from '../src/features/webhooks/ssrf.js';
import { loadConfig } from '../src/shared/config.js';
import { verifyRuta, verifyRutaV2 } from './webhook-receiver.js';

describe('SSRF address rules', () => {
  it('refuses every non-public range, including IPv4 inside IPv6', () => {
    for (const a of [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '100.127.255.254',
      '0.0.0.0',
      '0.1.2.3',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '198.18.0.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '::10.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('accepts public unicast addresses', () => {
    for (const a of [
      '93.184.215.14',
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it('vets literal addresses without DNS and refuses names that resolve privately', async () => {
    await expect(vetTarget('https://93.184.215.14/x', false)).resolves.toMatchObject({
      address: '93.184.215.14',
      family: 4,
    });
    await expect(vetTarget('https://[2606:4700:4700::1111]/x', false)).resolves.toMatchObject({ family: 6 });
    await expect(vetTarget('https://localhost/x', false)).rejects.toThrow(/resolves to/);
    await expect(vetTarget('http://93.184.215.14/x', false)).rejects.toThrow(/https/);
    expect((await vetTarget('http://127.0.0.1/x', true)).address).toBeUndefined();
  });

  it('pins the connection to the vetted address', () => {
    // The only expects are in the callbacks: if a callback never ran, the test must fail.
    expect.assertions(2);
    const lookup = pinnedLookup('93.184.215.14', 4) as unknown as (
      h: string,
      o: object,
      cb: (...a: unknown[]) => void,
    ) => void;
    lookup('evil.example', {}, (err, address, family) =>
      expect([err, address, family]).toEqual([null, '93.184.215.14', 4]),
    );
    lookup('evil.example', { all: true }, (err, list) =>
      expect([err, list]).toEqual([null, [{ address: '93.184.215.14', family: 4 }]]),
    );
  });
});

describe('retry schedule', () => {
  const schedule = loadConfig({}).webhookRetrySchedule;
  it('makes 10 attempts, the last about 23.7 h after the first and never past 24 h, even with maximum jitter', () => {
    for (const random of [() => 0, () => 0.999999]) {
      const first = 1_000_000;
      let at = first;
      let attempt = 1;
      for (;;) {
        const next = nextAttemptAt(schedule, attempt, first, at + 5000, null, random);
        if (next === null) break;
        at = next;
        attempt++;
      }
      expect(attempt).toBe(10);
      expect(at - first).toBeGreaterThan(23.7 * 3600_000);
      expect(at - first).toBeLessThanOrEqual(24 * 3600_000);
    }
  });

  it('only ever delays: jitter within +10%, Retry-After clamped to [delay, 2 × delay]', () => {
    expect(nextAttemptAt(schedule, 1, 0, 0, null, () => 0)).toBe(30_000);
    expect(nextAttemptAt(schedule, 1, 0, 0, null, () => 0.999)).toBeLessThanOrEqual(33_000);
    expect(nextAttemptAt(schedule, 1, 0, 0, 1000)).toBe(30_000);
    expect(nextAttemptAt(schedule, 1, 0, 0, 45_000)).toBe(45_000);
    expect(nextAttemptAt(schedule, 1, 0, 0, 3600_000)).toBe(60_000);
    expect(nextAttemptAt(schedule, 10, 0, 0, null)).toBeNull();
    // Late in the window, the room left for the remaining schedule caps both.
    const late = 20 * 3600_000;
    expect(nextAttemptAt(schedule, 8, 0, late, 3600_000 * 10)).toBe(late + 28_800_000);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(undefined, 0)).toBeNull();
  });
});

describe('signature', () => {
  it('is t=<seconds>,v1=<hex HMAC(secret, body)>…,v2=<hex HMAC(secret, t.body)>…, new secret before old', () => {
    const body = '{"id":"evt_1","event":"order.created"}';
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], 1_700_000_000_999);
    const t = '1700000000';
    expect(header).toBe(
      `t=${t},v1=${hmacHex('whsec_new', body)},v1=${hmacHex('whsec_old', body)},` +
        `v2=${hmacHex('whsec_new', `${t}.${body}`)},v2=${hmacHex('whsec_old', `${t}.${body}`)}`,
    );
    expect(verifyRuta(body, header, 'whsec_old')).toBe(true);
    expect(verifyRuta(body, header, 'whsec_other')).toBe(false);
    expect(verifyRuta(body, 't=1,v1=zz', 'whsec_new')).toBe(false);
    expect(verifyRutaV2(body, header, 'whsec_old', 1_700_000_000)).toBe(true);
    expect(verifyRutaV2(body, header, 'whsec_new', 1_700_000_300)).toBe(true);
    // Older than 5 minutes: a replay.
    expect(verifyRutaV2(body, header, 'whsec_new', 1_700_000_301)).toBe(false);
    // v2 binds t: the same signature under another t fails.
    expect(verifyRutaV2(body, header.replace(`t=${t}`, 't=1700000100'), 'whsec_new', 1_700_000_100)).toBe(false);
  });

  it('makes whsec_ + standard base64 of 32 bytes; old secrets get a Standard Webhooks key only if base64', () => {
    const s = newSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardKey(s)).toEqual(Buffer.from(s.slice(6), 'base64'));
    expect(standardKey(s)?.length).toBe(32);
    const hex = `whsec_${'ab12'.repeat(16)}`;
    expect(standardKey(hex)?.length).toBe(48);
    expect(standardKey('whsec_ab-_cd12')).toBeNull();
    expect(standardKey('whsec_')).toBeNull();
    expect(standardKey('no_prefix')).toBeNull();
  });
});

describe('buildHeaders', () => {
  const event = { id: 'evt_1', type: 'order.created', order_id: 'ord_1' };
  const body = '{"id":"evt_1"}';
  const now = 1_700_000_000_500;

  it('sends the spec headers, Service-Event-Id and Standard Webhooks headers a library verifies', () => {
    const secret = newSecret();
    const h = buildHeaders({
      event,
      body,
      endpoint: { secret, previous_secret: null, previous_secret_expires_at: null },
      attempt: 3,
      now,
    });
    expect(h).toMatchObject({
      'Content-Type': 'application/json',
      'User-Agent': 'Ruta-Webhooks/1.0',
      'Service-Event': 'order.created',
      'Service-Order-Id': 'ord_1',
      'Service-Attempt': '3',
      'Service-Event-Id': 'evt_1',
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1700000000',
    });
    expect(h['Service-Signature']).toBe(signatureHeader(body, [secret], now));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const wh = new Webhook(secret);
    expect(wh.sign('evt_1', new Date(now), body)).toBe(h['webhook-signature']);
  });

  it('signs with both secrets during the overlap (new first), the new one only after it', () => {
    const [cur, prev] = [newSecret(), newSecret()];
    const endpoint = { secret: cur, previous_secret: prev, previous_secret_expires_at: now + 1 };
    const h = buildHeaders({ event, body, endpoint, attempt: 1, now });
    const sigs = h['webhook-signature']?.split(' ') ?? [];
    expect(sigs).toEqual([
      new Webhook(cur).sign('evt_1', new Date(now), body),
      new Webhook(prev).sign('evt_1', new Date(now), body),
    ]);
    expect(h['Service-Signature']).toBe(signatureHeader(body, [cur, prev], now));
    const after = buildHeaders({
      event,
      body,
      endpoint: { ...endpoint, previous_secret_expires_at: now },
      attempt: 1,
      now,
    });
    expect(after['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(after['Service-Signature']).toBe(signatureHeader(body, [cur], now));
  });

  it('omits the Standard Webhooks headers for an old secret that is not base64, and no order id for a test event', () => {
    const old = 'whsec_abc-def_ghijklmnopqrstuvwxyz0123456789ABCDEFG';
    const h = buildHeaders({
      event: { ...event, order_id: null },
      body,
      endpoint: { secret: old, previous_secret: null, previous_secret_expires_at: null },
      attempt: 1,
      now,
    });
    expect(Object.keys(h).filter((k) => k.startsWith('webhook-'))).toEqual([]);
    expect(h['Service-Order-Id']).toBeUndefined();
    expect(verifyRutaV2(body, h['Service-Signature'] ?? '', old, 1_700_000_000)).toBe(true);
  });
});

describe('decideOutcome', () => {
  const policy = { schedule: [30, 120], attemptBudgetMs: 5000, random: () => 0 };
  const first = 1_000_000;
  const answer = (status: number | null, retryAfterMs: number | null = null) => ({
    ok: status !== null && status >= 200 && status < 300,
    status,
    retryAfterMs,
  });

  it('a 2xx succeeds, a 410 disables, whatever the attempt', () => {
    expect(decideOutcome({ number: 1, firstAttemptAt: first, now: first }, answer(204), policy)).toEqual({
      kind: 'succeeded',
    });
    expect(decideOutcome({ number: 3, firstAttemptAt: first, now: first }, answer(200), policy).kind).toBe('succeeded');
    expect(decideOutcome({ number: 1, firstAttemptAt: first, now: first }, answer(410), policy)).toEqual({
      kind: 'disable',
      reason: 'http_410',
    });
  });

  it('retries on the schedule, honours Retry-After on 429/503 only, and fails once the schedule is done', () => {
    expect(decideOutcome({ number: 1, firstAttemptAt: first, now: first + 10 }, answer(500), policy)).toEqual({
      kind: 'retry',
      retryAt: first + 10 + 30_000,
    });
    expect(decideOutcome({ number: 2, firstAttemptAt: first, now: first }, answer(null), policy)).toEqual({
      kind: 'retry',
      retryAt: first + 120_000,
    });
    expect(decideOutcome({ number: 1, firstAttemptAt: first, now: first }, answer(429, 50_000), policy)).toEqual({
      kind: 'retry',
      retryAt: first + 50_000,
    });
    expect(decideOutcome({ number: 1, firstAttemptAt: first, now: first }, answer(500, 50_000), policy)).toEqual({
      kind: 'retry',
      retryAt: first + 30_000,
    });
    expect(decideOutcome({ number: 3, firstAttemptAt: first, now: first }, answer(500), policy)).toEqual({
      kind: 'failed',
    });
  });
});
