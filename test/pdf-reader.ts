import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { inflateSync } from 'node:zlib';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

/**
 * Reads back the PDFs Ruta writes, independently of pdfkit: the pages' sizes, the text they show
 * and the filled rectangles they draw (the barcodes), rasterised and decoded with ZXing (the
 * same WASM decoder the courier app falls back to). Enough of PDF for what pdfkit emits: objects
 * with FlateDecode content streams, text as hex strings in TJ arrays in the standard fonts
 * (WinAnsi; Ruta writes Latin-1 only), rectangles as `x y w h re` in the page's top-down space.
 */
export interface PdfPage {
  width: number;
  height: number;
  text: string;
  rects: [number, number, number, number][];
}

export function readPdf(pdf: Buffer): PdfPage[] {
  const s = pdf.toString('latin1');
  if (!s.startsWith('%PDF-')) throw new Error('not a PDF');
  const objects = new Map<number, { dict: string; stream?: Buffer }>();
  const re = /(\d+) 0 obj\s*(<<[\s\S]*?>>)\s*(stream\r?\n)?/g;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    const [, num, dict, streamStart] = m;
    const entry: { dict: string; stream?: Buffer } = { dict: dict as string };
    if (streamStart) {
      const length = Number(/\/Length (\d+)/.exec(dict as string)?.[1]);
      const from = m.index + m[0].length;
      const raw = Buffer.from(s.slice(from, from + length), 'latin1');
      entry.stream = /\/FlateDecode/.test(dict as string) ? inflateSync(raw) : raw;
      re.lastIndex = from + length;
    }
    objects.set(Number(num), entry);
  }
  const pages: PdfPage[] = [];
  for (const { dict } of objects.values()) {
    if (!/\/Type \/Page\b/.test(dict)) continue;
    const box = /\/MediaBox \[([^\]]+)\]/.exec(dict)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
    const contents = Number(/\/Contents (\d+) 0 R/.exec(dict)?.[1]);
    const content = objects.get(contents)?.stream?.toString('latin1') ?? '';
    pages.push({
      width: (box[2] ?? 0) - (box[0] ?? 0),
      height: (box[3] ?? 0) - (box[1] ?? 0),
      text: textOf(content),
      rects: [...content.matchAll(/([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re/g)].map(
        (r) => [Number(r[1]), Number(r[2]), Number(r[3]), Number(r[4])] as [number, number, number, number],
      ),
    });
  }
  // pdfkit writes the pages in order; the page tree's /Kids would say the same.
  return pages;
}

const WIN_ANSI = new TextDecoder('windows-1252');

/** Each TJ/Tj string, its hex decoded, one line per text operation. */
function textOf(content: string): string {
  const lines: string[] = [];
  for (const op of content.matchAll(/\[([^\]]*)\]\s*TJ|<([0-9a-fA-F]*)>\s*Tj/g)) {
    const parts = op[1] !== undefined ? [...op[1].matchAll(/<([0-9a-fA-F]*)>/g)].map((h) => h[1] as string) : [op[2]];
    lines.push(parts.map((h) => WIN_ANSI.decode(Buffer.from(h ?? '', 'hex'))).join(''));
  }
  return lines.join('\n');
}

let prepared: Promise<unknown> | undefined;
/** ZXing from the package's own .wasm file (by default it would fetch it from a CDN). */
function zxing(): Promise<unknown> {
  if (!prepared) {
    const file = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
    const wasmBinary = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;
    prepared = Promise.resolve(prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true }));
  }
  return prepared;
}

/** The page's rectangles painted black on white at `scale` pixels a point, decoded. */
export async function decodeBarcodes(page: PdfPage, scale = 4): Promise<{ format: string; text: string }[]> {
  await zxing();
  const width = Math.ceil(page.width * scale);
  const height = Math.ceil(page.height * scale);
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  for (const [x, y, w, h] of page.rects) {
    for (let py = Math.round(y * scale); py < Math.round((y + h) * scale); py++) {
      for (let px = Math.round(x * scale); px < Math.round((x + w) * scale); px++) {
        const i = (py * width + px) * 4;
        data[i] = data[i + 1] = data[i + 2] = 0;
      }
    }
  }
  const found = await readBarcodes({ data, width, height, colorSpace: 'srgb' } as Parameters<typeof readBarcodes>[0], {
    formats: ['QRCode', 'Code128'],
    maxNumberOfSymbols: 4,
  });
  return found.map((b) => ({ format: b.format, text: b.text }));
}
