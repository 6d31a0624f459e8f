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
if (over) {
  console.error(`web: a first screen is over the ${BUDGET / 1024} KB budget`);
  process.exit(1);
}
