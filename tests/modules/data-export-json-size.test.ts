import fc from 'fast-check';
import { flatRecordBytes, jsonBytes } from '../../src/modules/data-export/json-size';

describe('jsonBytes (the size budget of an export batch)', () => {
  it('is the UTF-8 length of JSON.stringify for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
      }),
      { numRuns: 2000 },
    );
  });

  it('counts escapes and multi-byte characters, and skips undefined members as JSON does', () => {
    for (const value of [
      { name: 'Zoë "Quote" \\ back\nslash', city: '東京', emoji: '🎉', tab: '\t' },
      [],
      {},
      [null, true, false, -0, 1e21, 0.1],
      { a: undefined, b: [undefined, 1] },
    ])
      expect(jsonBytes(value)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  it('measures flat records (CSV) the same way, with their keys measured once', () => {
    const size = flatRecordBytes(['record_id', 'name', 'total', 'note']);
    fc.assert(
      fc.property(fc.integer(), fc.string({ unit: 'binary' }), fc.double(), fc.option(fc.string()), (record_id, name, total, note) => {
        const record = { record_id, name, total, note };
        expect(size(record)).toBe(Buffer.byteLength(JSON.stringify(record)));
      }),
    );
  });
});
