import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * JSX text and quoted JSX attributes are not JavaScript strings: `\u2019` there is shown as the six
 * characters it is written with (the board's "this order\u2019s day", found by QA). Escapes belong
 * in JS strings (`{'\u2019'}`, template literals); in JSX text write the character itself.
 */

const WEB = fileURLToPath(new URL('../web/src', import.meta.url));
const ESCAPE = /\\(u[0-9a-fA-F]{4}|u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|[nt])/;

/** Where in one .tsx source an escape sits in JSX text or a quoted JSX attribute: `file:line: text`. */
function escapesInJsx(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const raw =
      ts.isJsxText(node) || (ts.isStringLiteral(node) && ts.isJsxAttribute(node.parent)) ? node.getText(source) : '';
    if (ESCAPE.test(raw)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line}: ${raw.trim()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('JSX text', () => {
  it('finds an escape in JSX text and quoted attributes, not in JS strings', () => {
    const sample = [
      'const a = <p>No courier\\u2019s day</p>;',
      'const b = <p title="it\\u2019s">ok</p>;',
      "const c = <p>{'it\\u2019s'}{`x\\u2019`}</p>;",
    ].join('\n');
    expect(escapesInJsx('x.tsx', sample).map((x) => x.split(':')[1])).toEqual(['1', '2']);
  });

  it('no .tsx file of web/src writes an escape where JSX shows it as is', () => {
    const files = readdirSync(WEB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.tsx'));
    const found = files.flatMap((f) => escapesInJsx(relative(WEB, join(WEB, f)), readFileSync(join(WEB, f), 'utf8')));
    expect(found).toEqual([]);
  });
});
