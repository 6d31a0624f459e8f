import { type Ref, useEffect, useImperativeHandle, useRef } from 'react';

export interface SignatureHandle {
  /** The drawing as a PNG, or null when nothing was drawn. */
  png(): Promise<Blob | null>;
  clear(): void;
}

/**
 * A signature drawn with a finger or a mouse (pointer events), exported as a PNG on white.
 * `onDrawn` hears each finished stroke (a form clears its "needs a signature" note).
 */
export function SignaturePad({
  ref,
  label,
  onDrawn,
}: {
  ref: Ref<SignatureHandle>;
  label: string;
  onDrawn?: () => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawn = useRef(false);
  const heard = useRef(onDrawn);
  heard.current = onDrawn;

  useEffect(() => {
    const c = canvas.current!;
    const ratio = window.devicePixelRatio || 1;
    c.width = c.clientWidth * ratio;
    c.height = c.clientHeight * ratio;
    const ctx = c.getContext('2d')!;
    ctx.scale(ratio, ratio);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, c.width, c.height);
    ctx.lineWidth = 2.5;
    ctx.lineCap = 'round';
    ctx.strokeStyle = '#111';
    let down = false;
    const at = (e: PointerEvent) => {
      const r = c.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top] as const;
    };
    const start = (e: PointerEvent) => {
      down = true;
      c.setPointerCapture(e.pointerId);
      const [x, y] = at(e);
      ctx.beginPath();
      ctx.moveTo(x, y);
    };
    const moveTo = (e: PointerEvent) => {
      if (!down) return;
      const [x, y] = at(e);
      ctx.lineTo(x, y);
      ctx.stroke();
      drawn.current = true;
    };
    const end = () => {
      if (down && drawn.current) heard.current?.();
      down = false;
    };
    c.addEventListener('pointerdown', start);
    c.addEventListener('pointermove', moveTo);
    c.addEventListener('pointerup', end);
    c.addEventListener('pointercancel', end);
    return () => {
      c.removeEventListener('pointerdown', start);
      c.removeEventListener('pointermove', moveTo);
      c.removeEventListener('pointerup', end);
      c.removeEventListener('pointercancel', end);
    };
  }, []);

  useImperativeHandle(ref, () => ({
    png: () =>
      new Promise((resolve) => {
        if (!drawn.current) return resolve(null);
        canvas.current!.toBlob((b) => resolve(b), 'image/png');
      }),
    clear: () => {
      const c = canvas.current!;
      const ctx = c.getContext('2d')!;
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, c.width, c.height);
      ctx.restore();
      drawn.current = false;
    },
  }));

  return <canvas ref={canvas} className="signature-pad" aria-label={label} role="img" />;
}
