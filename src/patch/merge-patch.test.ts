// JSON merge patch (RFC 7386): the RFC's appendix examples, plus what kube-apiserver does
// beyond it (a non-object patch is a 400 `Invalid JSON Patch`; an array replaces the document).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.js';
import { ApiError } from '../apimachinery/errors.js';

const cases: { name: string; doc: unknown; patch: unknown; expected: unknown }[] = [
  { name: 'replaces a member', doc: { a: 'b' }, patch: { a: 'c' }, expected: { a: 'c' } },
  { name: 'adds a member', doc: { a: 'b' }, patch: { b: 'c' }, expected: { a: 'b', b: 'c' } },
  { name: 'null deletes a member', doc: { a: 'b' }, patch: { a: null }, expected: {} },
  { name: 'null deletes only that member', doc: { a: 'b', b: 'c' }, patch: { a: null }, expected: { b: 'c' } },
  { name: 'an array replaces a scalar', doc: { a: ['b'] }, patch: { a: 'c' }, expected: { a: 'c' } },
  { name: 'a scalar replaces an array', doc: { a: 'c' }, patch: { a: ['b'] }, expected: { a: ['b'] } },
  { name: 'objects merge recursively', doc: { a: { b: 'c' } }, patch: { a: { b: 'd', c: null } }, expected: { a: { b: 'd' } } },
  { name: 'arrays are replaced, not merged', doc: { a: [{ b: 'c' }] }, patch: { a: [1] }, expected: { a: [1] } },
  { name: 'a new object has its null members dropped', doc: { e: null }, patch: { a: 1, c: { d: null, e: 1 } }, expected: { e: null, a: 1, c: { e: 1 } } },
  { name: 'a null member of the document is replaced like a missing one', doc: { a: null }, patch: { a: { b: null, c: 1 } }, expected: { a: { c: 1 } } },
  { name: 'null elements of a new array are kept', doc: {}, patch: { a: [null, { b: null, c: 1 }] }, expected: { a: [null, { c: 1 }] } },
  { name: 'an empty patch changes nothing', doc: { a: { b: 1 } }, patch: {}, expected: { a: { b: 1 } } },
  { name: 'labels on an object: add, change and delete', doc: { metadata: { name: 'p', labels: { a: '1', b: '2' } } }, patch: { metadata: { labels: { a: null, b: '3', c: '4' } } }, expected: { metadata: { name: 'p', labels: { b: '3', c: '4' } } } },
  { name: 'an array patch replaces the whole document', doc: { a: 1 }, patch: [1, null, { b: null }], expected: [1, null, {}] },
];

describe('merge patch', () => {
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.doc);
      const patchBefore = structuredClone(c.patch);
      assert.deepEqual(applyMergePatch(c.doc, c.patch), c.expected);
      assert.deepEqual(c.doc, before);
      assert.deepEqual(c.patch, patchBefore);
    });
  }

  for (const patch of [null, 'x', 3, true]) {
    it(`answers 400 Invalid JSON Patch for a ${patch === null ? 'null' : typeof patch} patch`, () => {
      assert.throws(
        () => applyMergePatch({ a: 1 }, patch),
        (e: unknown) => e instanceof ApiError && e.status.code === 400 && e.status.reason === 'BadRequest' && e.status.message === 'Invalid JSON Patch',
      );
    });
  }
});
