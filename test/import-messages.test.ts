import { describe, expect, it } from 'vitest';
import { dateFormatClashMessage, readDateFormatClash } from '../src/shared/import-messages.js';

// The console reads the upload's refused date_format back from its message (the header and the
// formats are in the message alone): what the server writes, the console must read whole.
describe('import messages the console rewrites', () => {
  it('reads back a refused date_format, whatever the header holds', () => {
    for (const header of [
      'requested_date (MM/DD/YYYY)',
      'fecha "entrega" (dd/mm/aaaa)',
      'x", which says DMY. y (mm/dd/yyyy)',
      'fecha\nentrega (DD/MM/YYYY)',
    ]) {
      const clash = { asked: 'DMY', header, says: 'MDY' };
      expect(readDateFormatClash(dateFormatClashMessage(clash))).toEqual(clash);
    }
  });

  it('reads nothing from another message', () => {
    expect(readDateFormatClash('must be equal to one of the allowed values')).toBeUndefined();
    expect(readDateFormatClash(`${dateFormatClashMessage({ asked: 'DMY', header: 'a', says: 'ISO' })} More.`)).toBe(
      undefined,
    );
  });
});
