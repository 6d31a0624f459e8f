import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../src/features/webhooks/event-types.js';
import { ERROR_STATUS } from '../src/shared/errors.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The rows of docs/errors.md's code table: code → status. */
function documentedCodes(): Map<string, number> {
  const table = read('docs/errors.md').split('<!-- codes:start -->')[1]?.split('<!-- codes:end -->')[0] ?? '';
  const rows = new Map<string, number>();
  for (const m of table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) rows.set(m[1] as string, Number(m[2]));
  return rows;
}

describe('docs', () => {
  it('docs/errors.md lists every error code with its status, and no code the server lacks', () => {
    expect(Object.fromEntries(documentedCodes())).toEqual(ERROR_STATUS);
  });

  it('docs/webhooks.md lists every event a merchant can subscribe to, and no other', () => {
    const table = read('docs/webhooks.md').split('<!-- events:start -->')[1]?.split('<!-- events:end -->')[0] ?? '';
    const listed = [...table.matchAll(/^\| `([a-z_.]+)` \|/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('every relative link in README.md, ARCHITECTURE.md and docs/ names a file that exists', () => {
    const pages = [
      'README.md',
      'ARCHITECTURE.md',
      'BENCHMARKS.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const broken: string[] = [];
    for (const page of pages) {
      const text = read(page);
      const links = [...text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)|<img src="([^"]+)"/g)].map(
        (m) => m[1] ?? m[2] ?? '',
      );
      for (const link of links) {
        if (/^[a-z]+:/.test(link) || link === '') continue;
        if (!existsSync(join(ROOT, dirname(page), link))) broken.push(`${page} → ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
