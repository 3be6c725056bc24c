import { test } from 'node:test';
import assert from 'node:assert/strict';
import { derChildren, readDerElement } from './der.js';

test('an element and its children, with short and long lengths', () => {
  // SEQUENCE { INTEGER 5, OCTET STRING of 200 bytes (long form length 0x81 0xc8) }
  const der = Buffer.concat([Buffer.from([0x30, 0x81, 0xce, 0x02, 0x01, 0x05, 0x04, 0x81, 0xc8]), Buffer.alloc(200, 7)]);
  const top = readDerElement(der, 0);
  assert.deepEqual(top, { tag: 0x30, at: 0, contents: 3, end: 209 });
  const [int, octets] = derChildren(der, top);
  assert.deepEqual(int, { tag: 0x02, at: 3, contents: 5, end: 6 });
  assert.deepEqual(octets, { tag: 0x04, at: 6, contents: 9, end: 209 });
});

test('malformed encodings are refused in the words the reader gives', () => {
  const words = { truncated: 'cut short', badLength: 'odd length' };
  assert.throws(() => readDerElement(Buffer.from([0x30]), 0, words), /cut short/);
  assert.throws(() => readDerElement(Buffer.from([0x30, 0x05, 0x01]), 0, words), /cut short/);
  // Indefinite (0x80) and five-byte lengths.
  assert.throws(() => readDerElement(Buffer.from([0x30, 0x80, 0x00, 0x00]), 0, words), /odd length/);
  assert.throws(() => readDerElement(Buffer.from([0x30, 0x85, 1, 0, 0, 0, 0]), 0, words), /odd length/);
  // A child that runs past its parent's end.
  const der = Buffer.from([0x30, 0x03, 0x04, 0x05, 0x00]);
  assert.throws(() => derChildren(der, readDerElement(der, 0)), /truncated DER/);
});
