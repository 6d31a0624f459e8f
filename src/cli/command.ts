import type { ParseArgsConfig } from 'node:util';
import type { AppContext } from '../shared/context.js';

// The shape of every `ruta …` command (the table is in src/cli.ts) and what they share: the one
// usage error, the printer behind --json, tables and timestamps.

/** A mistake in the command line: cli.ts prints `ruta: <message>`, the usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export type Values = Record<string, string | boolean | undefined>;

export interface Parsed {
  /** The options, as parseArgs read them (strict: an unknown option is a usage error). */
  values: Values;
  /** The positional arguments after the command's words (no more than `args` names). */
  args: string[];
}

/** What a command does once its arguments are checked; a number it resolves to is the exit code. */
export type Run = () => Promise<unknown>;

export interface Command {
  /** The words after `ruta` that name it: `keys create`. */
  name: string;
  /** Its lines in `ruta --help`, each starting with two spaces. */
  usage: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  /** Names of the positional arguments it may take (for the count; each command says which are required). */
  args?: readonly string[];
  /**
   * Checks the arguments and returns what to run, throwing UsageError on a mistake. Nothing may
   * be opened (database, file, port) before it returns, so a usage error has no side effect.
   */
  plan(parsed: Parsed): Run;
}

/** Runs `fn` over a migrated database and its context, and closes them after. */
export async function withContext<T>(fn: (ctx: AppContext) => Promise<T>): Promise<T> {
  // Loaded here, not at the top: `ruta --help` and a usage error answer without the database drivers.
  const { openContext } = await import('../shared/open-context.js');
  const { ctx, database } = await openContext();
  try {
    return await fn(ctx);
  } finally {
    await database.close();
  }
}

/** `human` goes to stdout and `note` to stderr, so `$(ruta …)` captures just the value; --json prints `obj`. */
export type Out = (obj: unknown, human: string, note?: string) => void;

export function printer(values: Values): Out {
  return (obj, human, note) => {
    if (values.json) return console.log(JSON.stringify(obj));
    console.log(human);
    if (note) console.error(note);
  };
}

/** An instant as the listings show it: UTC to the second. */
export const when = (ms: number | null): string =>
  ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Columns padded to their widest cell. */
export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
