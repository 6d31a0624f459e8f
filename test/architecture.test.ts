/**
 * The dependency rule of ARCHITECTURE.md, checked over the import graph of src/ (no database).
 * Type-only imports count too: a type cycle is still two modules that cannot be understood apart.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

/**
 * Edges the rule does not allow yet, each with the branch that removes it. Keep this list short
 * and dated by its reason; an entry whose edge no longer exists fails the test, so it cannot rot.
 */
const KNOWN_EXCEPTIONS: { from: string; to: string; why: string }[] = [];

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import, export-from and dynamic import() of a file, resolved to a path under the repo. */
function importsOf(file: string, text: string): Edge[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith('.')) return;
    const to = relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
    out.push({ from: relative(ROOT, file), to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      if (ts.isStringLiteral(lit)) add(lit.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The "feature | may import" table between the dependency-rule markers of ARCHITECTURE.md. */
function readRule(markdown: string): Map<string, string[]> {
  const block = /<!-- dependency-rule:start -->([\s\S]*?)<!-- dependency-rule:end -->/.exec(markdown)?.[1];
  if (block === undefined) throw new Error('ARCHITECTURE.md has no dependency-rule block');
  const rule = new Map<string, string[]>();
  for (const line of block.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const [, feature, deps] = cells;
    if (cells.length < 4 || feature === undefined || deps === undefined) continue;
    if (feature === 'feature' || feature.startsWith('---')) continue;
    rule.set(
      feature,
      deps
        .split(',')
        .map((d) => d.trim())
        .filter((d) => d !== ''),
    );
  }
  return rule;
}

type Area = { kind: 'shared' } | { kind: 'feature'; name: string } | { kind: 'root' };

/** shared/ is the bottom layer, features/<x>/ sit on it, and everything else in src/ (app.ts, server.ts, cli.ts) on top. */
function areaOf(path: string): Area {
  if (path.startsWith('src/shared/')) return { kind: 'shared' };
  const feature = /^src\/features\/([^/]+)\//.exec(path)?.[1];
  if (feature !== undefined) return { kind: 'feature', name: feature };
  return { kind: 'root' };
}

/** Why an edge breaks the rule, or undefined when it is allowed. */
function violation(e: Edge, rule: Map<string, string[]>): string | undefined {
  const from = areaOf(e.from);
  const to = areaOf(e.to);
  if (from.kind === 'root' || to.kind === 'shared') return undefined;
  if (to.kind === 'root') return `${e.from} imports ${e.to}: only the entry points (src/*.ts) may import them`;
  if (from.kind === 'shared') return `${e.from} imports ${e.to}: shared/ never imports a feature`;
  if (from.kind === 'feature' && to.kind === 'feature' && from.name !== to.name) {
    const allowed = rule.get(from.name) ?? [];
    if (!allowed.includes(to.name)) {
      return `${e.from} imports ${e.to}: ARCHITECTURE.md does not list ${to.name} among what ${from.name} may import`;
    }
  }
  return undefined;
}

function graph(): Edge[] {
  return sourceFiles(SRC).flatMap((f) => importsOf(f, readFileSync(f, 'utf8')));
}

describe('architecture', () => {
  const edges = graph();
  const rule = readRule(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));
  const isException = (e: Edge) => KNOWN_EXCEPTIONS.some((x) => x.from === e.from && x.to === e.to);

  it('reads a plausible import graph (the parser is not silently finding nothing)', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(edges).toContainEqual({ from: 'src/app.ts', to: 'src/shared/errors.ts', typeOnly: false });
    expect(edges).toContainEqual({ from: 'src/app.ts', to: 'src/shared/context.ts', typeOnly: true });
  });

  it('every import resolves to a file in the repository', () => {
    const missing = edges.filter((e) => !existsSync(join(ROOT, e.to))).map((e) => `${e.from} -> ${e.to}`);
    expect(missing).toEqual([]);
  });

  it('has no import cycle in src/, type-only imports included', () => {
    expect(cycles(edges)).toEqual([]);
  });

  it('every feature folder has a row in the rule, and the rule itself runs one way', () => {
    const folders = readdirSync(join(SRC, 'features')).filter((f) => statSync(join(SRC, 'features', f)).isDirectory());
    expect(folders.filter((f) => !rule.has(f))).toEqual([]);
    const declared = [...rule].flatMap(([from, deps]) => deps.map((to) => ({ from, to, typeOnly: false })));
    expect(declared.filter((e) => !rule.has(e.to)).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
    expect(cycles(declared)).toEqual([]);
  });

  it('no import breaks the dependency rule of ARCHITECTURE.md', () => {
    const broken = edges
      .filter((e) => !isException(e))
      .map((e) => violation(e, rule))
      .filter((v) => v !== undefined);
    expect(broken).toEqual([]);
  });

  it('only repositories (repo.ts, *-repo.ts) and src/shared/db/ write SQL or import kysely values', () => {
    const isRepo = (f: string) => /(^|\/|-)repo\.ts$/.test(f) || f.startsWith('src/shared/db/');
    const offenders: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const path = relative(ROOT, file);
      if (isRepo(path)) continue;
      const text = readFileSync(file, 'utf8');
      if (/^import\s+(?!type\b)[^;]*from\s+'kysely'/m.test(text))
        offenders.push(`${path}: imports a value from kysely`);
      const call = /\.(selectFrom|insertInto|updateTable|deleteFrom|selectNoFrom)\(|\bsql`/.exec(text);
      if (call) offenders.push(`${path}: ${call[0]}`);
    }
    expect(offenders).toEqual([]);
  });

  it('every known exception still exists (remove it from the list once its edge is gone)', () => {
    for (const x of KNOWN_EXCEPTIONS) {
      expect(edges.some((e) => e.from === x.from && e.to === x.to)).toBe(true);
    }
  });

  // The checker itself, on graphs small enough to read: each of these would pass if it found nothing.
  it('finds a cycle through a type-only import, and a self-import', () => {
    const e = (from: string, to: string, typeOnly = false) => ({ from, to, typeOnly });
    expect(cycles([e('a', 'b'), e('b', 'c', true), e('c', 'a'), e('c', 'd')])).toEqual([['a', 'b', 'c']]);
    expect(cycles([e('a', 'a')])).toEqual([['a']]);
    expect(cycles([e('a', 'b'), e('b', 'c')])).toEqual([]);
  });

  it('reports shared -> feature, feature -> unlisted feature and feature -> entry point', () => {
    const r = new Map([
      ['orders', ['accounts']],
      ['accounts', []],
    ]);
    const e = (from: string, to: string) => ({ from, to, typeOnly: true });
    expect(violation(e('src/shared/x.ts', 'src/features/orders/repo.ts'), r)).toMatch(/shared\/ never imports/);
    expect(violation(e('src/features/accounts/a.ts', 'src/features/orders/repo.ts'), r)).toMatch(
      /does not list orders/,
    );
    expect(violation(e('src/features/orders/a.ts', 'src/app.ts'), r)).toMatch(/only the entry points/);
    expect(violation(e('src/features/orders/a.ts', 'src/features/accounts/service.ts'), r)).toBeUndefined();
    expect(violation(e('src/features/orders/a.ts', 'src/features/orders/b.ts'), r)).toBeUndefined();
    expect(violation(e('src/app.ts', 'src/features/orders/routes.ts'), r)).toBeUndefined();
  });

  it('parses imports of every form: multi-line, type-only, export-from, dynamic, import()', () => {
    const text = [
      "import {\n  a,\n  b,\n} from './one.js';",
      "import type { T } from './two.js';",
      "import { type U } from './three.js';",
      "export { x } from './four.js';",
      "const m = await import('./five.js');",
      "let t: import('./six.js').T;",
      "import pg from 'pg';",
    ].join('\n');
    const got = importsOf(join(SRC, 'x.ts'), text).map((e) => [e.to, e.typeOnly]);
    expect(got).toEqual([
      ['src/one.ts', false],
      ['src/two.ts', true],
      ['src/three.ts', true],
      ['src/four.ts', false],
      ['src/five.ts', false],
      ['src/six.ts', true],
    ]);
  });
});
