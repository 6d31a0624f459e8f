import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MOVE_BODIES } from '../src/features/lifecycle/schemas.js';
import {
  type Action,
  allowedMoves,
  COURIER_MOVES,
  FAILURE_REASONS,
  FINISHED_STATUSES,
  ON_BOARD_STATUSES,
  TERMINAL_STATUSES,
  TRANSITIONS,
} from '../src/features/lifecycle/transitions.js';
import { ORDER_STATUSES } from '../src/shared/db/tables/orders.js';

// The vocabulary of moves lives beside the transition table (issue #18 §2), which the web build
// imports as it is: these check that it is consistent with the table and with the API schemas, and
// that the file stays importable by a browser bundle (no schema library, no server code).

const ACTIONS = Object.keys(TRANSITIONS) as Action[];

describe('transition vocabulary', () => {
  it('terminal statuses are exactly those no move leaves; cancel leaves every other one', () => {
    const left = new Set(ACTIONS.flatMap((a) => TRANSITIONS[a].from));
    expect(ORDER_STATUSES.filter((s) => !left.has(s))).toEqual([...TERMINAL_STATUSES]);
    expect(TRANSITIONS.cancel.from).toEqual(ORDER_STATUSES.filter((s) => !TERMINAL_STATUSES.includes(s)));
  });

  it('an attempt fails only while the package is on board', () => {
    expect(TRANSITIONS.fail.from).toEqual(ON_BOARD_STATUSES);
  });

  it('allowedMoves follows the table, in its order, limited to `only`', () => {
    expect(allowedMoves('in_transit')).toEqual(['approach', 'arrive', 'deliver', 'fail', 'cancel']);
    expect(allowedMoves('in_transit', COURIER_MOVES)).toEqual(['approach', 'arrive', 'deliver', 'fail']);
    expect(allowedMoves('assigned', COURIER_MOVES)).toEqual(['ready', 'pickup']);
    expect(allowedMoves('delivered')).toEqual([]);
    for (const status of ORDER_STATUSES) {
      expect(allowedMoves(status)).toEqual(ACTIONS.filter((a) => TRANSITIONS[a].from.includes(status)));
    }
  });

  it('courier moves are moves of the table with a route of their own (never cancel or assign)', () => {
    for (const a of COURIER_MOVES) expect(MOVE_BODIES).toHaveProperty(a);
    expect(COURIER_MOVES).not.toContain('cancel');
    expect(COURIER_MOVES).not.toContain('assign');
  });

  it('POST /orders/{id}/fail accepts exactly FAILURE_REASONS as its reason', () => {
    const reason = (MOVE_BODIES.fail as unknown as { properties: { reason: { enum: string[] } } }).properties.reason;
    expect(reason.enum).toEqual([...FAILURE_REASONS]);
  });

  it('the file the web imports imports nothing but pure data', () => {
    const text = readFileSync(new URL('../src/features/lifecycle/transitions.ts', import.meta.url), 'utf8');
    const from = [...text.matchAll(/from '([^']+)'/g)].map((m) => m[1]);
    expect(from).toEqual(['../../shared/db/tables/orders.js']);
    const table = readFileSync(new URL('../src/shared/db/tables/orders.ts', import.meta.url), 'utf8');
    expect([...table.matchAll(/^import (?!type )/gm)]).toEqual([]);
  });

  it('the web keeps no copy: no web/src/shared/transitions.ts, no status lists of its own', () => {
    expect(existsSync(new URL('../web/src/shared/transitions.ts', import.meta.url))).toBe(false);
    const api = readFileSync(new URL('../web/src/shared/api.ts', import.meta.url), 'utf8');
    expect(api).not.toMatch(/\bTERMINAL\b/);
    const courier = readFileSync(new URL('../web/src/courier/client.ts', import.meta.url), 'utf8');
    expect(courier).not.toMatch(/'picked_up', 'in_transit'/);
  });

  it('no web file spells out a shared status list as a literal of its own', () => {
    // A copy drifts when a status is added: every array of string literals in web/src is read and
    // compared, as a set, with the lists the web imports.
    const asSet = (list: readonly string[]) => [...list].sort().join();
    const shared = [TERMINAL_STATUSES, FINISHED_STATUSES, ON_BOARD_STATUSES].map(asSet);
    const web = new URL('../web/src/', import.meta.url);
    const files = readdirSync(web, { recursive: true, encoding: 'utf8' }).filter(
      (f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'),
    );
    const copies = files.flatMap((f) =>
      [...readFileSync(new URL(f, web), 'utf8').matchAll(/\[((?:\s*'[a-z_]+',?)+)\s*\]/g)]
        .map((m) => asSet([...m[1].matchAll(/'([a-z_]+)'/g)].map((s) => s[1])))
        .filter((list) => shared.includes(list))
        .map((list) => `${f}: ${list}`),
    );
    expect(copies).toEqual([]);
  });
});
