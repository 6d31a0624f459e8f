import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { type Results, rows } from '../bench/report.js';
import { consoleFirstLoad, FIRST_LOAD_BUDGET_KB, firstLoadFiles } from '../bench/scenarios/first-load.js';
import { ROOT } from './browser-helpers.js';

/** `npm run bench`'s console_first_load figure, on a build laid out the way Vite writes one. */
describe('bench: the console first load', () => {
  const web = mkdtempSync(join(tmpdir(), 'ruta-first-load-'));
  afterAll(() => rmSync(web, { recursive: true, force: true }));
  const put = (file: string, text: string) => {
    mkdirSync(join(web, file, '..'), { recursive: true });
    writeFileSync(join(web, file), text);
  };
  put(
    'console/index.html',
    `<!doctype html><head>
<script type="module" crossorigin src="/assets/console-A.js"></script>
<link rel="modulepreload" crossorigin href="/assets/react-B.js">
<link rel="stylesheet" crossorigin href="/assets/console-C.css">
<link rel="icon" href="/assets/icon.js">
</head>`,
  );
  // The entry: a static import Vite preloads, one it did not, and two lazy pages.
  put(
    'assets/console-A.js',
    `import{j as e}from"./react-B.js";import"./shared-D.js";const M=()=>import("./MapPage-E.js");` +
      `const O=x(()=>import("./OrderPage-F.js"),__vite__mapDeps([0,1]));export{M,O};`,
  );
  put('assets/react-B.js', `export const j=1;${'r'.repeat(5000)}`);
  put('assets/shared-D.js', `export{q}from"./deep-G.js";`);
  put('assets/deep-G.js', 'export const q=2;');
  put('assets/MapPage-E.js', 'x'.repeat(100_000));
  put('assets/OrderPage-F.js', 'y'.repeat(100_000));
  put('assets/console-C.css', 'body{color:red}');
  put('assets/icon.js', 'not a script the page runs');

  it('follows the entry, its preloads and their static imports; never a lazy page or another link', () => {
    expect(firstLoadFiles(web, 'console/index.html')).toEqual([
      'assets/console-A.js',
      'assets/react-B.js',
      'assets/console-C.css',
      'assets/shared-D.js',
      'assets/deep-G.js',
    ]);
  });

  it('sums their gzipped bytes, JavaScript and CSS apart', () => {
    const r = consoleFirstLoad(web);
    const gz = (text: string) => gzipSync(text, { level: 9 }).length;
    expect(r.files.map((f) => f.file)).toHaveLength(5);
    expect(r.css_kb_gz).toBe(Math.round((gz('body{color:red}') / 1024) * 10) / 10);
    expect(r.kb_gz).toBeCloseTo(r.js_kb_gz + r.css_kb_gz, 0);
    // The lazy pages (100 KB each, raw) are not in it.
    expect(r.kb_gz).toBeLessThan(2);
  });

  it('is skipped (not zero) when there is no build', () => {
    expect(() => consoleFirstLoad(join(web, 'nowhere'))).toThrow(/no console build/);
  });

  it('the real build, when there is one, is under the budget of issue #9', () => {
    let r: ReturnType<typeof consoleFirstLoad>;
    try {
      r = consoleFirstLoad(join(ROOT, 'dist', 'web'));
    } catch {
      return; // not built in this checkout: the browser suites build it
    }
    expect(r.files[0]?.file).toMatch(/^assets\/console-.*\.js$/);
    expect(r.files.some((f) => /^assets\/react-/.test(f.file))).toBe(true);
    expect(r.files.some((f) => /MapPage|leaflet/.test(f.file))).toBe(false);
    expect(r.kb_gz).toBeLessThan(FIRST_LOAD_BUDGET_KB);
  });

  it("is a row of BENCHMARKS.md's table, against the 300 KB target", () => {
    const results = (fl: Results['results']['console_first_load'], skipped: Record<string, string> = {}) =>
      rows({
        db: 'sqlite',
        skipped,
        results: {
          create: null,
          list_depth: null,
          webhook: null,
          location: null,
          rss_mb: null,
          console_first_load: fl,
        },
      } as unknown as Results).find((r) => r[0] === 'console_first_load');
    const fl = { kb_gz: 81.1, js_kb_gz: 78.2, css_kb_gz: 2.9, files: [{ file: 'assets/x.js', kb_gz: 78.2 }] };
    expect(results(fl)).toEqual([
      'console_first_load',
      '81.1 KB gzipped (JS 78.2 KB, CSS 2.9 KB, 1 files)',
      '',
      '',
      '< 300 KB',
      'yes',
    ]);
    expect(results({ ...fl, kb_gz: 301 })?.[5]).toBe('**no**');
    expect(results(null, { console_first_load: 'no console build' })?.[1]).toBe('skipped: no console build');
  });
});
