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

const problemOf = (s: string): string | undefined => {
  if (s.includes('\u0000')) return 'the NUL character';
  // A lone surrogate (`"\ud800"` in JSON) is not a character: SQLite would store it and hand back
  // JSON strict parsers reject, PostgreSQL would silently replace it.
  if (!s.isWellFormed()) return 'a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
};

/**
 * Finds the first value no database column can hold faithfully: a string with a NUL character
 * (PostgreSQL text refuses it) or that is not well-formed Unicode, or a number JSON could not
 * represent (1e400 parses to Infinity, which JSON.stringify would silently turn into null).
 * Iterative, so deep nesting cannot blow the stack. Binary values (an uploaded image's Buffer) are
 * bytes, not text: they are skipped whole, never walked entry by entry (10 MiB would be 10 million
 * entries, seconds of a blocked event loop and gigabytes of memory).
 */
export function findUnstorable(root: unknown): { param: string; problem: string } | undefined {
  return anyUnstorable(root) ? whereUnstorable(root) : undefined;
}

/**
 * Whether findUnstorable would find anything, walking the values alone: it runs on every request,
 * and the frames that make a path (and Object.entries' pairs) were 4 KB of garbage for one order
 * create's body. Only a refused input pays for the second walk that names the place.
 */
function anyUnstorable(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (problemOf(v)) return true;
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      // bytes: see findUnstorable
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (problemOf(k)) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}

function whereUnstorable(root: unknown): { param: string; problem: string } | undefined {
  const stack: Frame[] = [{ value: root, key: null, parent: null }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const v = frame.value;
    if (typeof v === 'string') {
      const problem = problemOf(v);
      if (problem) return { param: pathOf(frame), problem: `must not contain ${problem}` };
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return { param: pathOf(frame), problem: 'is out of range' };
    } else if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      // bytes: nothing to check here (see above)
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: frame });
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const problem = problemOf(k);
        if (problem) return { param: pathOf(frame), problem: `has a key with ${problem}` };
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
