import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_HEAP_GROWTH_PERCENT, loadConfig } from '../src/shared/config.js';
import { limitHeapGrowth } from '../src/shared/heap.js';

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
