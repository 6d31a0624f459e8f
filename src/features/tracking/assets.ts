import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../shared/config.js';
import type { PageAssets } from './page.js';

/** The tracking page's entry in Vite's manifest (web/vite.config.ts: `track`, web/src/track/). */
const ENTRY = 'src/track/main.ts';

interface ManifestChunk {
  file: string;
  css?: string[];
  imports?: string[];
}

const cache = new Map<string, { scripts: string[]; styles: string[] }>();

/**
 * The built script and stylesheets of the page, read once from dist/web/.vite/manifest.json; none
 * when the web is not built (the page still works: everything is in its HTML, nothing is live).
 */
function built(webDir: string): { scripts: string[]; styles: string[] } {
  let hit = cache.get(webDir);
  if (hit) return hit;
  hit = { scripts: [], styles: [] };
  const path = join(webDir, '.vite', 'manifest.json');
  if (existsSync(path)) {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as Record<string, ManifestChunk>;
    const entry = manifest[ENTRY];
    if (entry) {
      const css = new Set<string>();
      const walk = (c: ManifestChunk | undefined) => {
        for (const f of c?.css ?? []) css.add(`/${f}`);
        for (const i of c?.imports ?? []) walk(manifest[i]);
      };
      walk(entry);
      hit = { scripts: [`/${entry.file}`], styles: [...css] };
    }
  }
  cache.set(webDir, hit);
  return hit;
}

const originOf = (template: string): string => new URL(template.replace(/\{[a-z]\}/g, '0')).origin;

export function pageAssets(config: Config): PageAssets {
  const { scripts, styles } = built(config.webDir);
  const img = new Set([originOf(config.mapTilesUrl), new URL(config.publicUrl).origin]);
  return { scripts, styles, tiles: config.mapTilesUrl, imgOrigins: [...img] };
}
