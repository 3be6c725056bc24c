import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goJsonSyntaxError, goQuoteByte, typeMetaError } from './go-json.js';

const bytes = (s: string | number[]): Uint8Array => (typeof s === 'string' ? Buffer.from(s, 'utf8') : Uint8Array.from(s));

describe('goJsonSyntaxError', () => {
  it('accepts what Go accepts', () => {
    for (const doc of ['{}', '[]', ' {"a": [1, -2.5e+3, 0, true, false, null, "x\\u00e9\\n"]} ', '"s"', '12', '0.5', '1E9', 'null']) {
      assert.equal(goJsonSyntaxError(bytes(doc)), undefined, doc);
    }
  });

  it('words the first error as Go does', () => {
    const cases: [string | number[], string][] = [
      ['', 'unexpected end of JSON input'],
      ['   ', 'unexpected end of JSON input'],
      ['{"metadata": ', 'unexpected end of JSON input'],
      ['{"a":"b', 'unexpected end of JSON input'],
      ['x', `invalid character 'x' looking for beginning of value`],
      ['{"a" 1}', `invalid character '1' after object key`],
      ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
      ['[1 2]', `invalid character '2' after array element`],
      ['{1:2}', `invalid character '1' looking for beginning of object key string`],
      ['{"a":1,}', `invalid character '}' looking for beginning of object key string`],
      ['[1,]', `invalid character ']' looking for beginning of value`],
      ['{"a":1} x', `invalid character 'x' after top-level value`],
      ['01', `invalid character '1' after top-level value`],
      ['-a', `invalid character 'a' in numeric literal`],
      ['1.e5', `invalid character 'e' after decimal point in numeric literal`],
      ['1.', `invalid character ' ' after decimal point in numeric literal`],
      ['1e+', `invalid character ' ' in exponent of numeric literal`],
      ['tru', `invalid character ' ' in literal true (expecting 'e')`],
      ['nul!', `invalid character '!' in literal null (expecting 'l')`],
      ['fals', `invalid character ' ' in literal false (expecting 'e')`],
      ['"a\\qb"', `invalid character 'q' in string escape code`],
      ['"\\u12G4"', `invalid character 'G' in \\u hexadecimal character escape`],
      ['"a\nb"', `invalid character '\\n' in string literal`],
      ["{'a':1}", `invalid character '\\'' looking for beginning of object key string`],
      [[0xef, 0xbb, 0xbf, 0x7b, 0x7d], `invalid character 'ï' looking for beginning of value`],
      [[0x00], `invalid character '\\x00' looking for beginning of value`],
      [[0xc2, 0x85], `invalid character 'Â' looking for beginning of value`],
    ];
    for (const [doc, want] of cases) assert.equal(goJsonSyntaxError(bytes(doc)), want, JSON.stringify(doc));
  });

  it('quotes bytes as Go quotes a rune', () => {
    assert.equal(goQuoteByte(0x5c), `'\\\\'`);
    assert.equal(goQuoteByte(0x09), `'\\t'`);
    assert.equal(goQuoteByte(0x7f), `'\\x7f'`);
    assert.equal(goQuoteByte(0x85), `'\\u0085'`);
    assert.equal(goQuoteByte(0xa0), `'\\u00a0'`);
    assert.equal(goQuoteByte(0xe9), `'é'`);
  });
});

describe('typeMetaError', () => {
  const struct = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

  it('reads objects and null, with null type fields as empty', () => {
    for (const v of [null, {}, { apiVersion: 'v1', kind: 'ConfigMap' }, { kind: null }, { apiVersion: 'apps/v1' }]) assert.equal(typeMetaError(v), undefined);
  });

  it('rejects documents and type fields Go cannot read into the type fields', () => {
    assert.equal(typeMetaError([1]), `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type ${struct}`);
    assert.equal(typeMetaError('x'), `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${struct}`);
    assert.equal(typeMetaError(true), `couldn't get version/kind; json parse error: json: cannot unmarshal bool into Go value of type ${struct}`);
    assert.equal(typeMetaError({ kind: 1 }), `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string`);
    assert.equal(typeMetaError({ APIVersion: {} }), `couldn't get version/kind; json parse error: json: cannot unmarshal object into Go struct field .apiVersion of type string`);
    assert.equal(typeMetaError({ apiVersion: 'a/b/c' }), 'unexpected GroupVersion string: a/b/c');
  });
});
