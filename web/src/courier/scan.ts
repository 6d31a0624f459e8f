/**
 * Reading a label (docs/labels.md): the browser's BarcodeDetector where it has one (Chrome on
 * Android; Safari only behind a flag), else ZXing in WebAssembly (zxing.ts, loaded on first use). The camera
 * loop and the tests feed the same function a frame as ImageData.
 */

import { typedTrackingCode } from '../../../src/shared/tracking-code.js';

interface Detector {
  detect(image: ImageBitmapSource): Promise<{ rawValue: string }[]>;
}
type DetectorClass = {
  new (opts: { formats: string[] }): Detector;
  getSupportedFormats(): Promise<string[]>;
};

let native: Promise<Detector | null> | undefined;

/** The browser's detector when it reads both label codes, else null (probed once). */
function nativeDetector(): Promise<Detector | null> {
  native ??= (async () => {
    const D = (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
    if (!D) return null;
    try {
      const formats = await D.getSupportedFormats();
      if (!formats.includes('qr_code') || !formats.includes('code_128')) return null;
      return new D({ formats: ['qr_code', 'code_128'] });
    } catch {
      return null;
    }
  })();
  return native;
}

/** Which decoder `decodeFrame` uses on this browser, for the scan sheet to say. */
export async function decoderName(): Promise<'BarcodeDetector' | 'zxing-wasm'> {
  return (await nativeDetector()) ? 'BarcodeDetector' : 'zxing-wasm';
}

/** Every code found in the frame, as text. */
export async function decodeFrame(image: ImageData): Promise<string[]> {
  const d = await nativeDetector();
  if (d) return (await d.detect(image)).map((b) => b.rawValue);
  const { zxingDecode } = await import('./zxing');
  return zxingDecode(image);
}

/**
 * The tracking code a scanned or typed text names: the code itself, or a tracking page address
 * ending in it. The API's forgiving reading (src/shared/tracking-code.ts): lower case, I/L for 1,
 * O for 0, and spaces or hyphens between groups, as a courier types a code off a torn label.
 */
export function trackingCodeOf(text: string): string | null {
  let candidate = text.trim();
  if (/^https?:\/\//i.test(candidate)) {
    try {
      candidate = new URL(candidate).pathname.split('/').filter(Boolean).at(-1) ?? '';
    } catch {
      return null;
    }
  }
  return typedTrackingCode(candidate) ?? null;
}
