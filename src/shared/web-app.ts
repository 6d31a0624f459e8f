import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from './config.js';

/** The two single-page apps built by Vite into dist/web (web/vite.config.ts). */
const APPS = ['console', 'courier'] as const;

/** Origin of the tile template, e.g. https://tile.openstreetmap.org, for img-src. */
function tilesOrigin(template: string): string {
  return new URL(template.replace(/\{[a-z]\}/g, '0')).origin;
}

/**
 * A strict policy: only our own scripts and styles (no inline code, which Vite's build does not
 * need), images from ourselves, the tile server and the file links' origin (RUTA_PUBLIC_URL may be
 * another host than the one the browser used), and API calls to ourselves only.
 */
export function webCsp(config: Config): string {
  const img = new Set(["'self'", 'data:', 'blob:', tilesOrigin(config.mapTilesUrl), new URL(config.publicUrl).origin]);
  return [
    "default-src 'self'",
    // 'wasm-unsafe-eval' lets the courier app compile its barcode decoder (zxing-wasm, our own
    // file): WebAssembly only, no eval of JavaScript.
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self'",
    `img-src ${[...img].join(' ')}`,
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Console not built</title>
<body style="font:16px system-ui;max-width:40rem;margin:3rem auto;padding:0 1rem">
<h1>The console is not built</h1>
<p>This server runs from source and finds no <code>dist/web</code>. Run <code>npm run build</code>
(it also runs at <code>npm ci</code>), then restart <code>ruta serve</code>.</p></body></html>`;

/**
 * Serves the console at /console and the courier app at /courier from dist/web: hashed files
 * under /assets are cached for a year (their names change with their content); everything else,
 * the HTML shells, the service worker and the manifest, is revalidated on every load so that a
 * deploy is seen at once. Unknown paths under an app get its index.html (client-side routes).
 */
export async function installWebApps(app: FastifyInstance, config: Config): Promise<void> {
  const root = config.webDir;
  const built = existsSync(join(root, 'console', 'index.html'));
  const csp = webCsp(config);

  const secure = (reply: FastifyReply) =>
    reply
      .header('Content-Security-Policy', csp)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .header('X-Frame-Options', 'DENY');

  // A newcomer who types only the host (http://localhost:3000) lands on the console, not on a 404.
  app.get('/', { schema: { hide: true } }, async (_req, reply) => secure(reply).redirect('/console/', 302));

  if (!built) {
    for (const name of APPS) {
      app.get(`/${name}`, { schema: { hide: true } }, async (_req, reply) =>
        secure(reply).code(503).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT),
      );
      app.get(`/${name}/*`, { schema: { hide: true } }, async (_req, reply) =>
        secure(reply).code(503).header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT),
      );
    }
    return;
  }

  // serve: false: only reply.sendFile is used, so that the fallback and headers stay ours.
  await app.register(fastifyStatic, { root, serve: false, decorateReply: true });

  app.get('/assets/*', { schema: { hide: true } }, async (req, reply) => {
    const rest = (req.params as { '*': string })['*'];
    secure(reply);
    if (!/^\w[\w.-]*$/.test(rest) || !existsSync(join(root, 'assets', rest))) {
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    }
    return reply.sendFile(join('assets', rest), root, { immutable: true, maxAge: '365d', dotfiles: 'deny' });
  });

  // The console's shell carries the tile URL the CSP allows (RUTA_MAP_TILES_URL). A shell is read
  // again when its file changes: `npm run build:web` under a running server replaces the hashed
  // assets the old shell names, and a shell read once at start gave a blank console until a restart.
  const attr = config.mapTilesUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const shells = new Map<string, { mtimeMs: number; html: string }>();
  const shellOf = (name: string): string => {
    const file = join(root, name, 'index.html');
    const cached = shells.get(name);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch (err) {
      // Mid-build the file is briefly gone: the last shell read is the best answer there is.
      if (cached) return cached.html;
      throw err;
    }
    if (cached?.mtimeMs === mtimeMs) return cached.html;
    const html = readFileSync(file, 'utf8').replace(
      /<meta name="ruta-tiles" content=""\s*\/?>/,
      `<meta name="ruta-tiles" content="${attr}" />`,
    );
    shells.set(name, { mtimeMs, html });
    return html;
  };
  for (const name of APPS) shellOf(name);

  // Browsers ask for /favicon.ico on every origin; the app icon (a PNG, which they all accept) answers.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) =>
    secure(reply).type('image/png').sendFile(join('courier', 'icon-192.png'), root, { maxAge: '1d', dotfiles: 'deny' }),
  );

  for (const name of APPS) {
    const dir = join(root, name);
    // The router ignores trailing slashes, so /console and /console/ are one route: the shell.
    const serve = async (req: FastifyRequest, reply: FastifyReply) => {
      const rest = (req.params as { '*'?: string })['*'] ?? '';
      secure(reply).header('Cache-Control', 'no-cache');
      // A path with a dot names a file (sw.js, manifest, icons); others are the app's own routes.
      const file = rest !== '' && /\.[a-z0-9]+$/i.test(rest) ? rest : 'index.html';
      // Only plain names: the apps' own files sit at the top of their folder.
      if (file !== 'index.html' && !/^\w[\w.-]*$/.test(file)) {
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      }
      if (file !== 'index.html' && !existsSync(join(dir, file))) {
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      }
      if (file === 'index.html') return reply.type('text/html; charset=utf-8').send(shellOf(name));
      if (name === 'courier' && file === 'sw.js') reply.header('Service-Worker-Allowed', '/courier/');
      return reply.sendFile(file, dir, { maxAge: 0, cacheControl: false, dotfiles: 'deny' });
    };
    app.get(`/${name}`, { schema: { hide: true } }, serve);
    app.get(`/${name}/*`, { schema: { hide: true } }, serve);
  }
}
