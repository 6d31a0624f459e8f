import { useEffect, useRef, useState } from 'react';
import { useSheet } from '../hooks/useSheet';
import { decodeFrame, decoderName, trackingCodeOf } from '../scan';

/** How often a camera frame is read: often enough to feel instant, rarely enough to spare the battery. */
const FRAME_MS = 250;

/**
 * The camera, reading labels one after another until closed: each code read is handed to `onCode`
 * (once until another code is read, so a label held in view is not counted again), which answers
 * the line to show ("Stop 3 loaded", "Not on your route"). A code can also be typed: a torn or
 * smudged label, a phone without a camera, or a page opened over plain http, where browsers give
 * no camera at all.
 */
export function ScanSheet({
  onCode,
  onClose,
}: {
  onCode: (code: string | null, text: string) => string;
  onClose: () => void;
}) {
  const sheet = useSheet(onClose);
  const video = useRef<HTMLVideoElement>(null);
  const [said, setSaid] = useState('Point the camera at a label.');
  const [decoder, setDecoder] = useState('');
  const [typed, setTyped] = useState('');
  const [noCamera, setNoCamera] = useState(false);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the camera opens once per sheet
  useEffect(() => {
    let stream: MediaStream | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    let last = '';
    const canvas = document.createElement('canvas');
    void decoderName().then(setDecoder);

    async function tick() {
      const v = video.current;
      if (closed || !v) return;
      if (v.readyState >= 2 && v.videoWidth > 0) {
        canvas.width = v.videoWidth;
        canvas.height = v.videoHeight;
        const g = canvas.getContext('2d', { willReadFrequently: true });
        if (g) {
          g.drawImage(v, 0, 0);
          try {
            const texts = await decodeFrame(g.getImageData(0, 0, canvas.width, canvas.height));
            const text = texts[0];
            if (text !== undefined && text !== last && !closed) {
              last = text;
              setSaid(onCode(trackingCodeOf(text), text));
            }
          } catch (e) {
            setSaid(`Could not read the camera: ${(e as Error).message}`);
          }
        }
      }
      if (!closed) timer = setTimeout(() => void tick(), FRAME_MS);
    }

    void (async () => {
      // navigator.mediaDevices is undefined outside a secure context (https, or localhost).
      if (!navigator.mediaDevices?.getUserMedia) {
        setNoCamera(true);
        setSaid(
          window.isSecureContext
            ? 'This browser gives no camera. Type the code printed on the label.'
            : 'No camera over http: browsers give the camera only at an https address. Type the code printed on the label, and ask your dispatcher for Ruta’s https address.',
        );
        return;
      }
      try {
        stream = await navigator.mediaDevices.getUserMedia({
          video: { facingMode: { ideal: 'environment' } },
          audio: false,
        });
        if (closed) {
          for (const t of stream.getTracks()) t.stop();
          return;
        }
        if (video.current) {
          video.current.srcObject = stream;
          await video.current.play().catch(() => undefined);
        }
        void tick();
      } catch (e) {
        setSaid(`No camera: ${(e as Error).message}. Allow the camera for this site and try again.`);
      }
    })();
    return () => {
      closed = true;
      clearTimeout(timer);
      for (const t of stream?.getTracks() ?? []) t.stop();
    };
  }, []);

  return (
    <section className="sheet scan" onKeyDown={sheet.onKeyDown} aria-label="Scan labels">
      <h2 ref={sheet.heading} tabIndex={-1}>
        Scan labels
      </h2>
      <video ref={video} muted playsInline aria-label="Camera" hidden={noCamera} />
      <p className="scan-result" role="status" aria-live="polite">
        {said}
      </p>
      {decoder && !noCamera && <p className="muted">Reader: {decoder}</p>}
      <form
        className="scan-typed"
        onSubmit={(e) => {
          e.preventDefault();
          const text = typed.trim();
          if (!text) return;
          setSaid(onCode(trackingCodeOf(text), text));
          setTyped('');
        }}
      >
        <label htmlFor="scan-typed">Or type the code on the label</label>
        <input
          id="scan-typed"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoCapitalize="characters"
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit">Mark loaded</button>
      </form>
      <button type="button" className="big" onClick={onClose}>
        Done
      </button>
    </section>
  );
}
