/** Query plans of both engines, read into one shape, for tests that check how a query runs. */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from '../src/shared/db/schema.js';

export interface PlanNodeInfo {
  label: string;
  table?: string;
  index?: string;
  fullScan: boolean;
  sort: boolean;
  /** The index range starts at the cursor row (created_at, id). */
  rangeOnCursor: boolean;
}

/** SQLite's EXPLAIN QUERY PLAN rows, as an indented tree and as nodes. */
export function sqlitePlan(rows: { id: number; parent: number; detail: string }[]) {
  const depth = new Map<number, number>([[0, -1]]);
  const lines: string[] = [];
  const nodes: PlanNodeInfo[] = rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    lines.push(`${'  '.repeat(d)}${r.detail}`);
    const m = /^(SEARCH|SCAN) (\w+)(?: USING (?:COVERING )?INDEX (\w+) \((.*)\))?/.exec(r.detail);
    return {
      label: r.detail,
      table: m?.[2],
      index: m?.[3],
      fullScan: m?.[1] === 'SCAN' && m[3] === undefined,
      sort: r.detail.includes('TEMP B-TREE'),
      // SQLite shows a row-value range as (created_at,id)<(?,?), or the range on its first column.
      rangeOnCursor: /\(created_at,id\)[<>]|created_at[<>]\?/.test(m?.[4] ?? ''),
    };
  });
  return { text: `${lines.join('\n')}\n`, nodes };
}

export interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Scan Direction'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  Plans?: PgNode[];
}

/** PostgreSQL's JSON plan (costs off), as an indented tree and as nodes. */
export function pgPlan(root: PgNode) {
  const lines: string[] = [];
  const nodes: PlanNodeInfo[] = [];
  const walk = (n: PgNode, d: number) => {
    const pad = '  '.repeat(d);
    const label = [
      n['Subplan Name'] ? `[${n['Subplan Name']}] ` : '',
      n['Node Type'],
      n['Scan Direction'] === 'Backward' ? ' Backward' : '',
      n['Index Name'] ? ` using ${n['Index Name']}` : '',
      n['Relation Name'] ? ` on ${n['Relation Name']}` : '',
    ].join('');
    lines.push(`${pad}${label}`);
    // Parameter values (fresh ids every run) are inlined into custom plans: shown as ? in the file.
    const literals = (cond: string) => cond.replace(/'(?:[^']|'')*'::text/g, '?::text');
    if (n['Index Cond']) lines.push(`${pad}  Index Cond: ${literals(n['Index Cond'])}`);
    if (n.Filter) lines.push(`${pad}  Filter: ${literals(n.Filter)}`);
    nodes.push({
      label,
      table: n['Relation Name'],
      index: n['Index Name'],
      fullScan: /Seq Scan|Bitmap/.test(n['Node Type']),
      sort: /Sort/.test(n['Node Type']),
      rangeOnCursor: /ROW\(created_at, id\)/.test(n['Index Cond'] ?? ''),
    });
    for (const child of n.Plans ?? []) walk(child, d + 1);
  };
  walk(root, 0);
  return { text: `${lines.join('\n')}\n`, nodes };
}

/**
 * For `explain`: whether an index alone can answer a query. Bitmap scans are forbidden beside
 * sequential ones because other test files write to the same tables between a test's VACUUM and
 * its EXPLAIN, so the visibility map can lag and PostgreSQL prices a bitmap heap scan lower.
 */
export const INDEX_ONLY = ['enable_seqscan', 'enable_bitmapscan'];

/**
 * The plan of `q` on `engine`. On PostgreSQL `off` names planner methods to forbid (a test table is
 * so small that a sequential scan always wins; forbidding it shows what the indexes allow).
 */
export async function explain(
  db: Kysely<DB>,
  engine: 'sqlite' | 'postgres',
  q: { sql: string; parameters: readonly unknown[] },
  off: string[] = ['enable_seqscan'],
) {
  return db.transaction().execute(async (trx) => {
    if (engine === 'sqlite') {
      const r = await trx.executeQuery<{ id: number; parent: number; detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${q.sql}`, [...q.parameters]),
      );
      return sqlitePlan(r.rows);
    }
    for (const knob of off) await trx.executeQuery(CompiledQuery.raw(`SET LOCAL ${knob} = off`));
    const r = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PgNode }] }>(
      CompiledQuery.raw(`EXPLAIN (FORMAT JSON, COSTS OFF) ${q.sql}`, [...q.parameters]),
    );
    return pgPlan(r.rows[0]!['QUERY PLAN'][0].Plan);
  });
}
