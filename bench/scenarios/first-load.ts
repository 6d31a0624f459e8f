import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ROOT } from '../env.js';
import { round, Skip } from './context.js';

/** Issue #9: the console's first screen loads under 300 KB of JavaScript and CSS, gzipped. */
export const FIRST_LOAD_BUDGET_KB = 300;

export interface FirstLoadResult {
  /** JavaScript and CSS the first screen loads, gzipped (KB of 1024 bytes). */
  kb_gz: number;
  js_kb_gz: number;
  css_kb_gz: number;
  /** Every file counted, with its gzipped size, in the order found. */
  files: { file: string; kb_gz: number }[];
}

/**
 * Static imports of a built ES module: `import{a as b}from"./x.js"`, `import"./x.js"`,
 * `export{…}from"./x.js"`. A dynamic `import("./x.js")` (a lazy page) has a parenthesis before its
 * string, which `[^"'()]` refuses, so lazy chunks are not followed.
 */
const STATIC_IMPORT = /\b(?:import|export)\s*(?:[^"'()]*?\bfrom\s*)?["']([^"']+\.js)["']/g;

/** The files one build's HTML page makes the browser load before anything is clicked. */
export function firstLoadFiles(webRoot: string, page: string): string[] {
  const html = readFileSync(join(webRoot, page), 'utf8');
  const seen = new Set<string>();
  const queue: string[] = [];
  const add = (url: string) => {
    const file = url.replace(/^\//, '');
    if (!seen.has(file)) {
      seen.add(file);
      queue.push(file);
    }
  };
  // The entry script, its modulepreloads and the stylesheets, as Vite writes them into the page.
  for (const m of html.matchAll(/<(?:script|link)\b[^>]*?(?:src|href)="(\/[^"]+\.(?:js|css))"[^>]*>/g)) {
    const tag = m[0];
    if (tag.startsWith('<link') && !/rel="(?:modulepreload|stylesheet)"/.test(tag)) continue;
    add(m[1] as string);
  }
  // And whatever those modules import statically (already preloaded by Vite; followed in case one is not).
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i] as string;
    if (!file.endsWith('.js')) continue;
    const code = readFileSync(join(webRoot, file), 'utf8');
    for (const m of code.matchAll(STATIC_IMPORT)) {
      const spec = m[1] as string;
      if (spec.startsWith('.')) add(posix.join(dirname(file), spec));
      else if (spec.startsWith('/')) add(spec);
    }
  }
  return queue;
}

const kb = (bytes: number) => round(bytes / 1024, 1);

/** Gzipped size (level 9, what a static server's precompressed files would be) of the console's first screen. */
export function consoleFirstLoad(webRoot = join(ROOT, 'dist', 'web')): FirstLoadResult {
  if (!existsSync(join(webRoot, 'console', 'index.html'))) {
    throw new Skip(`no console build at ${webRoot} (npm run build)`);
  }
  const files = firstLoadFiles(webRoot, 'console/index.html').map((file) => ({
    file,
    bytes: gzipSync(readFileSync(join(webRoot, file)), { level: 9 }).length,
  }));
  const sum = (ext: string) => files.filter((f) => f.file.endsWith(ext)).reduce((n, f) => n + f.bytes, 0);
  return {
    kb_gz: kb(sum('.js') + sum('.css')),
    js_kb_gz: kb(sum('.js')),
    css_kb_gz: kb(sum('.css')),
    files: files.map((f) => ({ file: f.file, kb_gz: kb(f.bytes) })),
  };
}

/** The bench's scenario: a fact of the build, measured without the server. */
export async function firstLoadScenario(): Promise<FirstLoadResult> {
  return consoleFirstLoad();
}
