import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/shared/config.js';
import { webCsp } from '../src/shared/web-app.js';
import { describeEach, startApp, type TestApp } from './helpers.js';

/** A stand-in for dist/web: the server's behaviour does not depend on what Vite put inside. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ruta-web-'));
  for (const app of ['console', 'courier']) {
    mkdirSync(join(dir, app), { recursive: true });
    writeFileSync(
      join(dir, app, 'index.html'),
      `<!doctype html><meta name="ruta-tiles" content="" /><title>${app}</title><script type="module" src="/assets/${app}-abc123.js"></script>`,
    );
  }
  writeFileSync(join(dir, 'courier', 'sw.js'), 'self.addEventListener("fetch", () => {});');
  writeFileSync(join(dir, 'courier', 'manifest.webmanifest'), '{"name":"Ruta courier"}');
  writeFileSync(join(dir, 'courier', 'icon-192.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'assets', 'console-abc123.js'), 'console.log(1)');
  return dir;
}

describeEach('serving the console and the courier app', (engine) => {
  let t: TestApp;
  let built: TestApp;
  let dir: string;
  beforeAll(async () => {
    dir = fakeBuild();
    t = await startApp(engine, { RUTA_WEB_DIR: join(dir, 'missing') });
    built = await startApp(engine, {
      RUTA_WEB_DIR: dir,
      RUTA_MAP_TILES_URL: 'https://tiles.example.net/{z}/{x}/{y}.png?a=1&b="2"',
    });
  });
  afterAll(async () => {
    await t?.close();
    await built?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a clear 503 page when the web app is not built', async () => {
    for (const url of ['/console', '/console/', '/console/orders/x', '/courier/']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('npm run build');
    }
  });

  it('serves each shell with the CSP, for its own paths too (client-side routes)', async () => {
    for (const [url, title] of [
      ['/console', 'console'],
      ['/console/', 'console'],
      ['/console/orders/ord_1', 'console'],
      ['/courier/', 'courier'],
    ]) {
      const res = await built.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain(`<title>${title}</title>`);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    // The tile template reaches the page, escaped for an attribute.
    const shell = (await built.app.inject({ method: 'GET', url: '/console/' })).body;
    expect(shell).toContain('content="https://tiles.example.net/{z}/{x}/{y}.png?a=1&amp;b=&quot;2&quot;"');
  });

  it('serves a shell rebuilt under the running server, and the last one while a build has removed it', async () => {
    const own = fakeBuild();
    const server = await startApp(engine, { RUTA_WEB_DIR: own });
    try {
      const shell = async () => (await server.app.inject({ method: 'GET', url: '/console/' })).body;
      expect(await shell()).toContain('<title>console</title>');
      // `npm run build:web`: a new shell naming new hashed assets (a later mtime, as a build gives).
      const file = join(own, 'console', 'index.html');
      writeFileSync(file, '<!doctype html><meta name="ruta-tiles" content="" /><title>rebuilt</title>');
      const later = new Date(Date.now() + 60_000);
      utimesSync(file, later, later);
      const rebuilt = await shell();
      expect(rebuilt).toContain('<title>rebuilt</title>');
      expect(rebuilt).toContain('<meta name="ruta-tiles" content="https://');
      unlinkSync(file);
      const res = await server.app.inject({ method: 'GET', url: '/console/orders/ord_1' });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<title>rebuilt</title>');
    } finally {
      await server.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('sends the bare host to the console, built or not', async () => {
    for (const server of [built, t]) {
      const res = await server.app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/console/');
    }
    // Only the root: other unknown paths stay 404.
    expect((await built.app.inject({ method: 'GET', url: '/nothing-here' })).statusCode).toBe(404);
  });

  it('answers /favicon.ico with the app icon, so browsers stop logging a 404', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.subarray(0, 4).toString('hex')).toBe('89504e47');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });

  it('caches hashed assets for a year, and answers 404 for a missing file', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/assets/console-abc123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await built.app.inject({ method: 'GET', url: '/assets/nope.js' })).statusCode).toBe(404);
    // "/assets/.." is the root once the URL is resolved: the redirect to the console, no file.
    const up = await built.app.inject({ method: 'GET', url: '/assets/..' });
    expect([up.statusCode, up.headers.location]).toEqual([302, '/console/']);
    expect((await built.app.inject({ method: 'GET', url: '/courier/nope.png' })).statusCode).toBe(404);
    expect((await built.app.inject({ method: 'GET', url: '/assets/..%2F..%2Fetc%2Fpasswd' })).statusCode).toBe(404);
    expect((await built.app.inject({ method: 'GET', url: '/courier/..%2Fconsole%2Findex.html' })).statusCode).toBe(404);
  });

  it('serves the service worker and the manifest revalidated, the worker scoped to /courier/', async () => {
    const sw = await built.app.inject({ method: 'GET', url: '/courier/sw.js' });
    expect(sw.statusCode).toBe(200);
    expect(sw.headers['content-type']).toMatch(/javascript/);
    expect(sw.headers['cache-control']).toBe('no-cache');
    expect(sw.headers['service-worker-allowed']).toBe('/courier/');
    const manifest = await built.app.inject({ method: 'GET', url: '/courier/manifest.webmanifest' });
    expect(manifest.statusCode).toBe(200);
    expect(manifest.json()).toEqual({ name: 'Ruta courier' });
  });

  it('leaves the API alone: unknown /v1 paths still answer the JSON 404', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('route_not_found');
  });
});

describe('webCsp', () => {
  it('allows the tile server and the public origin for images, and nothing inline', () => {
    const csp = webCsp(
      loadConfig({
        RUTA_MAP_TILES_URL: 'https://a.tiles.example/{z}/{x}/{y}.png',
        RUTA_PUBLIC_URL: 'https://ruta.example',
      }),
    );
    expect(csp).toContain("img-src 'self' data: blob: https://a.tiles.example https://ruta.example");
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('refuses a tile URL that is not an http(s) template', () => {
    expect(() => loadConfig({ RUTA_MAP_TILES_URL: 'ftp://x/{z}/{x}/{y}' })).toThrow(/^RUTA_MAP_TILES_URL/);
    expect(() => loadConfig({ RUTA_MAP_TILES_URL: 'https://x/tiles.png' })).toThrow(/^RUTA_MAP_TILES_URL/);
    expect(loadConfig({}).mapTilesUrl).toBe('https://tile.openstreetmap.org/{z}/{x}/{y}.png');
  });
});
