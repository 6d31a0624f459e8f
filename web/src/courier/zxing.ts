/**
 * The WASM fallback decoder, in a chunk of its own: imported only when a phone without
 * BarcodeDetector first scans, so the app's first screen never carries it. The .wasm file is
 * served by Ruta itself (a Vite asset): zxing-wasm would fetch it from a CDN by default, which
 * the CSP (connect-src 'self') refuses and an offline depot cannot reach.
 */
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';
import wasmUrl from 'zxing-wasm/reader/zxing_reader.wasm?url';

prepareZXingModule({
  overrides: { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) },
});

export async function zxingDecode(image: ImageData): Promise<string[]> {
  const found = await readBarcodes(image, { formats: ['QRCode', 'Code128'], maxNumberOfSymbols: 2, tryHarder: true });
  return found.map((b) => b.text);
}
