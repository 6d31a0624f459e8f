import bwipjs from 'bwip-js/node';
import PDFDocument from 'pdfkit';

/** 10 × 15 cm, the thermal label size couriers' printers take, in PDF points (1 pt = 1/72 in). */
export const LABEL_WIDTH = 283.46;
export const LABEL_HEIGHT = 425.2;
const MARGIN = 14;
const INNER = LABEL_WIDTH - 2 * MARGIN;

/** What one label shows: everything is already a display string (money formatted, address joined). */
export interface Label {
  trackingCode: string;
  merchant: string;
  customer: string;
  phone: string | null;
  address: string[];
  /** "Cash on delivery: PEN 45.00", or null when there is nothing to collect. */
  cod: string | null;
  packages: number;
  /** Route labels only: the stop's position and the route's stop count. */
  stop?: { position: number; of: number };
}

/**
 * The labels as one PDF, a page each, as a stream (pdfkit's document is a Readable): the caller
 * sends it as the response body. Barcodes are vector rectangles from bwip-js's module matrix,
 * not images: sharp at any printer's resolution and a few hundred bytes a page.
 */
export function renderLabels(labels: Label[], title: string): PDFKit.PDFDocument {
  const doc = new PDFDocument({
    size: [LABEL_WIDTH, LABEL_HEIGHT],
    margin: MARGIN,
    autoFirstPage: false,
    info: { Title: title, Creator: 'Ruta' },
  });
  for (const label of labels) page(doc, label);
  doc.end();
  return doc;
}

function page(doc: PDFKit.PDFDocument, l: Label): void {
  doc.addPage();
  let y = MARGIN;
  doc.font('Helvetica-Bold').fontSize(11);
  const headWidth = l.stop ? INNER - 90 : INNER;
  doc.text(latin1(l.merchant), MARGIN, y, { width: headWidth, height: 14, ellipsis: true, lineBreak: false });
  if (l.stop) {
    doc.fontSize(22).text(`STOP ${l.stop.position}`, MARGIN + INNER - 90, y - 2, { width: 90, align: 'right' });
    doc
      .font('Helvetica')
      .fontSize(8)
      .text(`of ${l.stop.of}`, MARGIN + INNER - 90, y + 21, { width: 90, align: 'right' });
  }
  y += 38;
  rule(doc, y);
  y += 8;

  doc.font('Helvetica').fontSize(8).text('DELIVER TO', MARGIN, y);
  y += 11;
  doc.font('Helvetica-Bold').fontSize(14);
  doc.text(latin1(l.customer), MARGIN, y, { width: INNER, height: 34, ellipsis: true });
  y = Math.min(doc.y, y + 34) + 2;
  doc.font('Helvetica').fontSize(10);
  const address = l.address.map(latin1).join('\n');
  doc.text(address, MARGIN, y, { width: INNER, height: 62, ellipsis: true });
  y = Math.min(doc.y, y + 62) + 2;
  if (l.phone) {
    doc.text(`Tel. ${latin1(l.phone)}`, MARGIN, y, { width: INNER, lineBreak: false });
    y += 14;
  }
  y = Math.max(y, 170);
  rule(doc, y);
  y += 8;

  // The QR on the left, COD and packages beside it.
  const qrSize = 110;
  qr(doc, l.trackingCode, MARGIN, y, qrSize);
  const side = MARGIN + qrSize + 12;
  const sideWidth = INNER - qrSize - 12;
  doc.font('Helvetica-Bold').fontSize(13);
  doc.text(l.cod ?? 'No cash to collect', side, y + 4, { width: sideWidth });
  doc
    .font('Helvetica')
    .fontSize(10)
    .text(`Packages: ${l.packages}`, side, doc.y + 6, { width: sideWidth });
  y += qrSize + 10;
  rule(doc, y);
  y += 12;

  code128(doc, l.trackingCode, MARGIN, y, INNER, 70);
  y += 76;
  doc.font('Courier-Bold').fontSize(16).text(l.trackingCode, MARGIN, y, { width: INNER, align: 'center' });
}

function rule(doc: PDFKit.PDFDocument, y: number): void {
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + INNER, y)
    .lineWidth(0.8)
    .stroke();
}

/** The QR code's dark modules, each row's runs merged into one rectangle. */
function qr(doc: PDFKit.PDFDocument, text: string, x: number, y: number, size: number): void {
  const [sym] = bwipjs.raw({ bcid: 'qrcode', text }) as { pixs: number[]; pixx: number; pixy: number }[];
  if (!sym) throw new Error('bwip-js made no QR code');
  const cell = size / sym.pixx;
  for (let row = 0; row < sym.pixy; row++) {
    let col = 0;
    while (col < sym.pixx) {
      if (!sym.pixs[row * sym.pixx + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < sym.pixx && sym.pixs[row * sym.pixx + col]) col++;
      doc.rect(x + start * cell, y + row * cell, (col - start) * cell, cell);
    }
  }
  doc.fill('black');
}

/** Code 128 (bwip-js picks the code sets): bars and spaces alternate, widths in modules. */
function code128(doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, height: number): void {
  const [sym] = bwipjs.raw({ bcid: 'code128', text }) as { sbs: number[] }[];
  if (!sym) throw new Error('bwip-js made no Code 128');
  const modules = sym.sbs.reduce((a, b) => a + b, 0);
  // Ten modules of quiet zone each side, as the standard asks.
  const unit = width / (modules + 20);
  let at = x + 10 * unit;
  sym.sbs.forEach((w, i) => {
    if (i % 2 === 0) doc.rect(at, y, w * unit, height);
    at += w * unit;
  });
  doc.fill('black');
}

/** Letters that are not a base letter plus a mark in Unicode, so NFD cannot strip them. */
const BASE: Record<string, string> = { Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', ı: 'i', Ħ: 'H', ħ: 'h' };

/**
 * The 14 standard PDF fonts cover Latin-1 (their WinAnsi encoding); embedding a Unicode font would add a
 * megabyte to every label. Accents outside it lose their mark (ő → o, Š → S, Ł → L), anything else is '?'.
 */
export function latin1(s: string): string {
  return [...s.normalize('NFC')]
    .map((ch) => {
      if (ch.charCodeAt(0) <= 0xff) return ch;
      const base = BASE[ch] ?? ch.normalize('NFD').replace(/\p{M}/gu, '');
      return base.length === 1 && base.charCodeAt(0) <= 0xff ? base : '?';
    })
    .join('');
}
