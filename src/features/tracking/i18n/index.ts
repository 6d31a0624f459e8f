import { type Catalog, LANGUAGES, type Lang } from './catalog.js';
import { en } from './en.js';
import { es } from './es.js';
import { pt } from './pt.js';

export { type Catalog, fill, LANGUAGES, type Lang } from './catalog.js';

const CATALOGS: Record<Lang, Catalog> = { en, es, pt };

export function catalogOf(lang: Lang): Catalog {
  return CATALOGS[lang];
}

const isLang = (v: string): v is Lang => (LANGUAGES as readonly string[]).includes(v);

/**
 * `?lang=` first (a link the merchant sends, or the page's own language switch), then the
 * browser's Accept-Language by quality (RFC 9110 §12.5.4; `pt-BR` matches `pt`), else English.
 */
export function negotiateLang(query: string | undefined, acceptLanguage: string | undefined): Lang {
  const q = query?.trim().toLowerCase().slice(0, 2);
  if (q && isLang(q)) return q;
  const ranked = (acceptLanguage ?? '')
    .slice(0, 500)
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const qv = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = qv ? Number(qv.slice(2)) : 1;
      return { lang: tag.trim().toLowerCase().split('-')[0] ?? '', weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((r) => r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const r of ranked) if (isLang(r.lang)) return r.lang;
  return 'en';
}
