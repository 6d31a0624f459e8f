import { execSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time of the files under `dir` (0 when it does not exist). */
function newest(dir: string, skip: (path: string) => boolean = () => false): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !skip(path)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Once per run, before any test file: the tests start the CLI from dist/ (test/cli-run.ts) and serve
 * the web apps from dist/web, so a build older than its sources is made again here. `npm ci` builds
 * both, so on a fresh clone this only reads modification times.
 */
export default function setup(): void {
  if (newest(join(ROOT, 'src')) > mtime(join(ROOT, 'dist', 'cli.js'))) {
    execSync('npx tsc -p tsconfig.json', { cwd: ROOT, stdio: 'inherit' });
  }
  // The web apps import shared code from src/; web/openapi.json and the client typed from it are
  // written by the web build itself.
  const generated = (path: string) => path.endsWith('openapi.json') || path.endsWith('schema.d.ts');
  const sources = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'web'), generated));
  if (sources > mtime(join(ROOT, 'dist', 'web', 'console', 'index.html'))) {
    // Vitest sets NODE_ENV=test, under which Vite bundles React's development build (the console's
    // first screen 146 KB gzipped instead of 86): build what `npm ci` and users get.
    execSync('npm run build:web', { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  }
}
