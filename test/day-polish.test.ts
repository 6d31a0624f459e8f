import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig, publicUrlWarning } from '../src/shared/config.js';
import { createLogger } from '../src/shared/context.js';
import { isLoopbackUrl, isPlainHttpUrl } from '../src/shared/public-url.js';

/** Everyday polish of issue 24: the log's format, the public address, Node 20 installs. */

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

describe('the server log', () => {
  it('is one JSON object a line when standard output is not a terminal', () => {
    const out = capture();
    const log = createLogger(loadConfig({ RUTA_LOG_LEVEL: 'info' }), { isTTY: false, destination: out.stream });
    log.info({ order: 'ord_1', password: 'hunter2' }, 'order created');
    const line = JSON.parse(out.text().trim());
    expect(line).toMatchObject({ msg: 'order created', order: 'ord_1', level: 30, password: '[redacted]' });
  });

  it('is pretty on a terminal, and when RUTA_LOG_FORMAT=pretty, with the same redaction', () => {
    for (const [env, isTTY] of [[{}, true] as const, [{ RUTA_LOG_FORMAT: 'pretty' }, false] as const]) {
      const out = capture();
      const log = createLogger(loadConfig(env), { isTTY, destination: out.stream });
      log.info({ order: 'ord_1', password: 'hunter2' }, 'order created');
      const text = out.text();
      expect(() => JSON.parse(text)).toThrow();
      expect(text).toMatch(/INFO.*order created/);
      expect(text).toContain('ord_1');
      expect(text).not.toContain('hunter2');
    }
  });

  it('RUTA_LOG_FORMAT=json wins over a terminal; a wrong value stops the start', () => {
    const out = capture();
    createLogger(loadConfig({ RUTA_LOG_FORMAT: 'JSON' }), { isTTY: true, destination: out.stream }).info('hi');
    expect(JSON.parse(out.text()).msg).toBe('hi');
    expect(() => loadConfig({ RUTA_LOG_FORMAT: 'colour' })).toThrow(/RUTA_LOG_FORMAT/);
  });
});

describe('the public address', () => {
  it('tells loopback addresses, which phones cannot open, from others', () => {
    for (const url of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://app.localhost']) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ['http://192.168.1.20:3000', 'https://ruta.example.com', 'http://localhost.example.com']) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
    expect(isLoopbackUrl(loadConfig({}).publicUrl)).toBe(true);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });

  it('tells plain http to another machine (no secure context on a phone) from https and loopback', () => {
    expect(isPlainHttpUrl('http://192.168.1.20:3000')).toBe(true);
    expect(isPlainHttpUrl('http://ruta.test:3000/courier/')).toBe(true);
    for (const url of ['https://ruta.example.com', 'http://localhost:3000', 'http://127.0.0.1:3000', '', 'nonsense']) {
      expect(isPlainHttpUrl(url), url).toBe(false);
    }
  });

  it('warns at start about a loopback address, then about plain http, and not about https', () => {
    expect(publicUrlWarning('http://localhost:3000')).toMatch(/loopback address/);
    expect(publicUrlWarning('http://192.168.1.20:3000')).toMatch(/plain http.*no location, camera or offline/);
    expect(publicUrlWarning('https://ruta.example.com')).toBeUndefined();
    expect(publicUrlWarning('https://localhost:8443')).toMatch(/loopback address/);
  });
});

describe('installing on Node 20', () => {
  it('every package npm installs on Node 20 accepts it (no EBADENGINE warning at npm ci)', () => {
    const semver = createRequire(import.meta.url)('semver') as { satisfies(v: string, r: string): boolean };
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } }>;
    };
    // The oldest Node 20 our build tools accept (vite: ^20.19.0); optional packages npm skips when they do not.
    const bad = Object.entries(lock.packages)
      .filter(([, p]) => !p.optional && p.engines?.node && !semver.satisfies('20.19.0', p.engines.node))
      .map(([name, p]) => `${name}@${p.version} needs node ${p.engines?.node}`);
    expect(bad).toEqual([]);
  });
});
