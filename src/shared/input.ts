import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

interface Frame {
  value: unknown;
  key: string | number | null;
  parent: Frame | null;
}

function pathOf(frame: Frame): string {
  const parts: (string | number)[] = [];
  for (let f: Frame | null = frame; f && f.key !== null; f = f.parent) parts.unshift(f.key);
  let out = '';
  for (const p of parts) out += typeof p === 'number' ? `[${p}]` : out === '' ? p : `.${p}`;
  return out;
}

/**
 * Finds the first value no database column can hold faithfully: a string with a NUL character
 * (PostgreSQL text refuses it) or a number JSON could not represent (1e400 parses to Infinity,
 * which JSON.stringify would silently turn into null). Iterative, so deep nesting cannot blow the stack.
 */
export function findUnstorable(root: unknown): { param: string; problem: string } | undefined {
  const stack: Frame[] = [{ value: root, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return { param: pathOf(frame), problem: 'must not contain the NUL character' };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { param: pathOf(frame), problem: 'is out of range' };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: frame });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        if (k.includes('\u0000')) return { param: pathOf(frame), problem: 'has a key with the NUL character' };
        stack.push({ value: child, key: k, parent: frame });
      }
    }
  }
  return undefined;
}

/** preValidation hook: the same refusal for the body, the query string and the path parameters. */
export async function rejectUnstorableInput(req: FastifyRequest): Promise<void> {
  // Unknown paths are the not-found handler's to answer, whatever their parameters hold.
  if (req.routeOptions.url === undefined) return;
  for (const [part, value] of [
    ['body', req.body],
    ['query', req.query],
    ['path', req.params],
  ] as const) {
    const bad = findUnstorable(value);
    if (bad) {
      if (bad.param === '') throw new ApiError('parameter_invalid', `The ${part} ${bad.problem}.`);
      throw new ApiError('parameter_invalid', `Invalid ${bad.param}: ${bad.problem}.`, bad.param);
    }
  }
}
