import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../src/features/webhooks/retry.js';
import { parseRetryAfter } from '../src/features/webhooks/sender.js';
import { hmacHex, signatureHeader } from '../src/features/webhooks/signature.js';
import { isPublicAddress, pinnedLookup, vetTarget } from '../src/features/webhooks/ssrf.js';
import { loadConfig } from '../src/shared/config.js';
import { verifyRuta } from './webhook-receiver.js';

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
  it('is t=<seconds>,v1=<hex HMAC-SHA256 of the raw body keyed with the whole secret>', () => {
    const body = '{"id":"evt_1","event":"order.created"}';
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], 1_700_000_000_999);
    expect(header).toBe(`t=1700000000,v1=${hmacHex('whsec_new', body)},v1=${hmacHex('whsec_old', body)}`);
    expect(verifyRuta(body, header, 'whsec_old')).toBe(true);
    expect(verifyRuta(body, header, 'whsec_other')).toBe(false);
    expect(verifyRuta(body, 't=1,v1=zz', 'whsec_new')).toBe(false);
  });
});
