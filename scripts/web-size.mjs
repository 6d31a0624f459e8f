// Prints the gzipped bytes of what each app's first screen loads (its index.html and the scripts
// and styles it names), and fails the build when the console's first screen passes the budget.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = resolve(process.argv[2] ?? 'dist/web');
const BUDGET = 300 * 1024;
let over = false;
for (const app of ['console', 'courier']) {
  const html = readFileSync(join(root, app, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]);
  let total = gzipSync(html).length;
  const parts = [];
  for (const f of new Set(files)) {
    const n = gzipSync(readFileSync(join(root, f))).length;
    total += n;
    parts.push(`${f.replace('/assets/', '')} ${(n / 1024).toFixed(1)} KB`);
  }
  console.log(`web: /${app}/ first screen ${(total / 1024).toFixed(1)} KB gzipped (${parts.join(', ')})`);
  if (total > BUDGET) over = true;
}

// The customer's tracking page (DESIGN §15): its script, the chunks it imports and its styles,
// from Vite's manifest; its HTML comes from the server (a few KB). Budget: 100 KB gzipped.
const TRACK_BUDGET = 100 * 1024;
const manifest = JSON.parse(readFileSync(join(root, '.vite', 'manifest.json'), 'utf8'));
const seen = new Set();
const walk = (key) => {
  const c = manifest[key];
  if (!c || seen.has(c.file)) return;
  seen.add(c.file);
  for (const css of c.css ?? []) seen.add(css);
  for (const i of c.imports ?? []) walk(i);
};
walk('src/track/main.ts');
let track = 0;
const trackParts = [];
for (const f of seen) {
  const n = gzipSync(readFileSync(join(root, f))).length;
  track += n;
  trackParts.push(`${f.replace('assets/', '')} ${(n / 1024).toFixed(1)} KB`);
}
console.log(`web: /track/ page assets ${(track / 1024).toFixed(1)} KB gzipped (${trackParts.join(', ')})`);
if (track > TRACK_BUDGET) {
  console.error(`web: the tracking page's assets are over the ${TRACK_BUDGET / 1024} KB budget`);
  over = true;
}
if (over) {
  console.error(`web: a first screen is over the ${BUDGET / 1024} KB budget`);
  process.exit(1);
}
