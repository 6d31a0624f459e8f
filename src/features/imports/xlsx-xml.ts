// The few pieces of SpreadsheetML the import reads, as text: elements, attributes, entities, the
// `_xHHHH_` escapes of OOXML strings, and which number formats are dates. No DOM: the sheet is
// scanned a slice at a time (xlsx.ts), so only the text of one unfinished row is ever held.
//
// Every pattern here runs in time linear in its input, whatever the input: an open tag cannot
// contain `<` (XML forbids it in attribute values too), a close tag is found with indexOf, never by
// a lazy match that a crafted file could make retry from every position.

/** The open tag of an element named `tag` (any namespace prefix): [whole, qualified name, "/" if self-closing]. */
export const openTag = (tag: string, flags = 'g') => new RegExp(`<((?:[\\w.-]+:)?${tag})\\b[^<>]*?(/?)>`, flags);

/**
 * The elements named `tag` in `xml`, in order, as [open tag, inner text ('' when self-closing)].
 * An element that is never closed ends the list. Not for elements nested in themselves (none of
 * the ones read here are).
 */
export function* elementsIn(xml: string, tag: string): Generator<[string, string], void> {
  const open = openTag(tag);
  for (let m = open.exec(xml); m; m = open.exec(xml)) {
    if (m[2] === '/') {
      yield [m[0], ''];
      continue;
    }
    const close = `</${m[1]}>`;
    const end = xml.indexOf(close, open.lastIndex);
    if (end < 0) return;
    yield [m[0], xml.slice(open.lastIndex, end)];
    open.lastIndex = end + close.length;
  }
}

/** The inner text of the first element named `tag`, or undefined. */
export function firstIn(xml: string, tag: string): string | undefined {
  for (const [, inner] of elementsIn(xml, tag)) return inner;
  return undefined;
}

/** An element's attributes by local name (`r:id` → `id`), values unescaped. */
export function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  // A name starts after whitespace, so a long run of name characters is tried once, not from each of its characters.
  for (const m of tag.matchAll(/\s([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const name = (m[1] as string).replace(/^[\w.-]+:/, '');
    // The first wins: `id` and `r:id` on one element never happen in files that matter.
    out[name] ??= unescapeXml(m[2] ?? m[3] ?? '');
  }
  return out;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML's five entities and character references. */
export function unescapeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (all, e: string) => {
    if (e[0] !== '#') return NAMED[e] ?? all;
    const code = e[1] === 'x' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** ECMA-376 `ST_Xstring`: `_xHHHH_` is a character XML cannot carry; `_x005F_` escapes the underscore. */
export function unescapeXstring(s: string): string {
  if (!s.includes('_x')) return s;
  return s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * The text of a string item (`<si>` or `<is>`): its `<t>` elements, rich-text runs joined, phonetic
 * runs (`<rPh>`, furigana) left out.
 */
export function stringItem(inner: string): string {
  let body = inner;
  if (inner.includes('rPh')) {
    body = '';
    let from = 0;
    // Once no closing tag follows one run, none follows a later one of the same name: without
    // remembering that, unclosed `<rPh>` runs each scanned to the end (quadratic, 17 s for 50 000).
    const unclosed = new Set<string>();
    for (const m of inner.matchAll(openTag('rPh'))) {
      if (m.index < from) continue;
      body += inner.slice(from, m.index);
      const name = m[1] as string;
      const close = m[2] === '/' || unclosed.has(name) ? -1 : inner.indexOf(`</${name}>`, m.index);
      if (close < 0 && m[2] !== '/') unclosed.add(name);
      from = close < 0 ? m.index + m[0].length : close + name.length + 3;
    }
    body += inner.slice(from);
  }
  let out = '';
  for (const [, text] of elementsIn(body, 't')) out += text;
  return unescapeXstring(unescapeXml(out));
}

/**
 * Built-in number formats that show a date or time: 14–22 and 45–47 everywhere, 27–36 and 50–58 in
 * East Asian locales, 71–81 in Thai (the same list as read-excel-file, which Ruta used before).
 */
const BUILT_IN_DATES = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56,
  57, 58, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81,
]);
const DATE_TOKENS = new Set([
  ...['s', 'ss', 'm', 'mm', 'h', 'hh', 'am', 'pm', 'a', 'p', 'd', 'dd', 'ddd', 'dddd', 'aaa', 'aaaa', 'aaaaa'],
  ...['mmm', 'mmmm', 'mmmmm', 'y', 'yy', 'yyyy', 'e', 'ee', 'eeee'],
]);

/** A custom format code that shows a date: every token left, once quoted text and brackets are gone, is a date part. */
export function isDateFormatCode(code: string): boolean {
  const sections = code.toLowerCase().replace(/;@$/, '').replace(/\\./g, ' ').split(';');
  return sections.some((section) => {
    const tokens = section
      .replace(/"[^"]*"/g, ' ')
      .replace(/(\[?[smhd]{1,2}\]?)[.,]00?0?/g, '$1')
      .replace(/\[([smhd]{1,2})\]/g, '$1')
      .replace(/\[[^\]]*\]/g, '')
      .split(/[^a-z0#?%]+/)
      .filter(Boolean);
    return tokens.length > 0 && tokens.every((t) => DATE_TOKENS.has(t));
  });
}

/** Whether number format `id` (with its code, for custom ids from 100 on) shows a date. */
export function isDateFormat(id: number, code: string | undefined): boolean {
  if (BUILT_IN_DATES.has(id)) return true;
  // Excel's own limit for a format code is 255 characters: a longer one is no date format of its.
  return id >= 100 && code !== undefined && code.length <= 255 && isDateFormatCode(code);
}

/**
 * Cell styles (`cellXfs`) → whether each shows a date, from styles.xml. A style without its own
 * `numFmtId` takes the one of the cell style (`cellStyleXfs`) it is based on.
 */
export function dateStyles(xml: string): boolean[] {
  const codes = new Map<number, string>();
  for (const m of xml.matchAll(openTag('numFmt'))) {
    const a = attributes(m[0]);
    if (a.numFmtId !== undefined && a.formatCode !== undefined) codes.set(Number(a.numFmtId), a.formatCode);
  }
  const xfs = (section: string): Record<string, string>[] => {
    const block = firstIn(xml, section);
    return block === undefined ? [] : [...block.matchAll(openTag('xf'))].map((m) => attributes(m[0]));
  };
  const base = xfs('cellStyleXfs');
  return xfs('cellXfs').map((a) => {
    const id = a.numFmtId ?? (a.xfId === undefined ? undefined : base[Number(a.xfId)]?.numFmtId);
    return id !== undefined && isDateFormat(Number(id), codes.get(Number(id)));
  });
}

/**
 * An Excel serial date as a Date, UTC, the way read-excel-file made it (the 1904 system shifted by
 * its 1462 days; serials before 1900-03-01 keep Lotus's phantom 29 February, as Excel shows them).
 */
export function serialToDate(serial: number, date1904: boolean): Date {
  const days = date1904 ? serial + 1462 : serial;
  return new Date(Math.floor((days - 25569) * 86_400_000));
}

/** `AB12` → column index 27 (0-based), or undefined. */
export function columnOf(ref: string): number | undefined {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c < 65 || c > 90) break;
    col = col * 26 + (c - 64);
  }
  return i === 0 || i > 3 ? undefined : col - 1;
}
