import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HEAP_GROWTH_PERCENT, loadConfig } from '../src/shared/config.js';
import { ConfigError } from '../src/shared/config-values.js';
import { limitHeapGrowth, YOUNG_GENERATION_FLAG } from '../src/shared/heap.js';

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('RUTA_HEAP_GROWTH_PERCENT', () => {
  it('defaults to a fixed growth of 50 %', () => {
    expect(DEFAULT_HEAP_GROWTH_PERCENT).toBe(50);
    expect(loadConfig({}).heapGrowthPercent).toBe(50);
  });

  it('takes 0 (V8 decides) and other whole percentages', () => {
    expect(loadConfig({ RUTA_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent).toBe(0);
    expect(loadConfig({ RUTA_HEAP_GROWTH_PERCENT: '200' }).heapGrowthPercent).toBe(200);
  });

  it.each(['-1', '1001', '12.5', 'half', ' '])('refuses %j, naming the variable', (raw) => {
    expect(() => loadConfig({ RUTA_HEAP_GROWTH_PERCENT: raw })).toThrow(ConfigError);
    expect(() => loadConfig({ RUTA_HEAP_GROWTH_PERCENT: raw })).toThrow(/^RUTA_HEAP_GROWTH_PERCENT /);
  });
});

describe('limitHeapGrowth', () => {
  it('sets nothing for 0', () => {
    expect(limitHeapGrowth(0)).toBeNull();
  });

  it('hands V8 the growth flag', () => {
    // V8 has no getter for its flags; the effect on the heap is measured by `npm run bench` (rss_mb).
    expect(limitHeapGrowth(DEFAULT_HEAP_GROWTH_PERCENT)).toBe('--heap-growing-percent=50');
  });
});

describe('the young generation cap on every launch', () => {
  // A start-up flag: a launch that forgets it runs with 2 × 16 MB of young generation, silently.
  it.each([
    ['package.json start', () => JSON.parse(read('package.json')).scripts.start],
    ["the ruta bin's shebang", () => read('src/cli.ts').split('\n')[0]],
    ['the Dockerfile CMD', () => read('Dockerfile').match(/^CMD .*$/m)?.[0]],
    ['deploy/ruta.service', () => read('deploy/ruta.service').match(/^ExecStart=.*$/m)?.[0]],
    ['deploy/ruta-worker.service', () => read('deploy/ruta-worker.service').match(/^ExecStart=.*$/m)?.[0]],
  ])('%s carries it', (_where, line) => {
    expect(line()).toContain(YOUNG_GENERATION_FLAG);
  });

  it('is a flag this node takes, and it shrinks the young generation', () => {
    const newSpace = (flags: string[]) =>
      Number(
        execFileSync(process.execPath, [
          ...flags,
          '-e',
          // Fill the young generation so V8 grows it to its cap, then report its size.
          "const k=[];for(let i=0;i<4e6;i++){const o={i,s:'x'+i};if(i%100===0)k.push(o)};process.stdout.write(String(require('v8').getHeapSpaceStatistics().find(s=>s.space_name==='new_space').space_size))",
        ]),
      );
    const capped = newSpace([YOUNG_GENERATION_FLAG]);
    expect(capped).toBeGreaterThan(0);
    expect(capped).toBeLessThanOrEqual(2 * 4 * 1024 * 1024 + 1024 * 1024);
    expect(newSpace([])).toBeGreaterThan(capped);
  });
});
