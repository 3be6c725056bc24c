// JSON patch (RFC 6902), table-driven: the RFC's operations and pointer rules, the engine
// behaviours kube-apiserver exposes (negative indices, replace of a missing member), and the
// statuses it answers (400 for a malformed document, 422 for any failure while applying,
// 413 past 10000 operations).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, jsonPatchStrictErrors, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
import { ApiError } from '../apimachinery/errors.js';

interface Case {
  name: string;
  doc: unknown;
  ops: unknown;
  expected?: unknown;
  /** 422 when not given otherwise. */
  error?: { code: number; message: string };
}

const UNPROCESSABLE = { code: 422, message: 'the server rejected our request due to an error in our request' };

const doc = { metadata: { name: 'p', labels: { app: 'web' } }, spec: { list: ['a', 'b', 'c'] } };

function run(cases: Case[]): void {
  for (const c of cases) {
    it(c.name, () => {
      const before = structuredClone(c.doc);
      if (c.error) {
        assert.throws(
          () => applyJsonPatch(c.doc, c.ops),
          (e: unknown) => {
            assert.ok(e instanceof ApiError);
            assert.equal(e.status.code, c.error!.code);
            assert.equal(e.status.message, c.error!.message);
            return true;
          },
        );
      } else {
        assert.deepEqual(applyJsonPatch(c.doc, c.ops), c.expected);
      }
      assert.deepEqual(c.doc, before);
    });
  }
}

describe('json patch: add', () => {
  run([
    { name: 'adds an object member', doc, ops: [{ op: 'add', path: '/metadata/labels/tier', value: 'front' }], expected: { ...doc, metadata: { name: 'p', labels: { app: 'web', tier: 'front' } } } },
    { name: 'replaces an existing member', doc: { a: 1 }, ops: [{ op: 'add', path: '/a', value: 2 }], expected: { a: 2 } },
    { name: 'inserts into an array at an index', doc: { l: ['a', 'c'] }, ops: [{ op: 'add', path: '/l/1', value: 'b' }], expected: { l: ['a', 'b', 'c'] } },
    { name: 'index equal to the length appends', doc: { l: ['a'] }, ops: [{ op: 'add', path: '/l/1', value: 'b' }], expected: { l: ['a', 'b'] } },
    { name: '- appends', doc: { l: ['a'] }, ops: [{ op: 'add', path: '/l/-', value: 'b' }], expected: { l: ['a', 'b'] } },
    { name: 'a negative index counts from the end', doc: { l: ['a', 'c'] }, ops: [{ op: 'add', path: '/l/-1', value: 'b' }], expected: { l: ['a', 'c', 'b'] } },
    { name: 'an index past the end fails', doc: { l: ['a'] }, ops: [{ op: 'add', path: '/l/3', value: 'x' }], error: UNPROCESSABLE },
    { name: 'a non-numeric index fails', doc: { l: ['a'] }, ops: [{ op: 'add', path: '/l/x', value: 'x' }], error: UNPROCESSABLE },
    { name: 'a missing parent fails', doc, ops: [{ op: 'add', path: '/metadata/annotations/a', value: 'x' }], error: UNPROCESSABLE },
    { name: 'a null parent fails', doc: { a: null }, ops: [{ op: 'add', path: '/a/b', value: 1 }], error: UNPROCESSABLE },
    { name: 'an absent value adds null', doc: {}, ops: [{ op: 'add', path: '/a' }], expected: { a: null } },
    { name: 'the value is copied, not shared', doc: {}, ops: [{ op: 'add', path: '/a', value: { x: 1 } }, { op: 'add', path: '/a/y', value: 2 }], expected: { a: { x: 1, y: 2 } } },
  ]);
});

describe('json patch: remove, replace', () => {
  run([
    { name: 'removes an object member', doc: { a: 1, b: 2 }, ops: [{ op: 'remove', path: '/a' }], expected: { b: 2 } },
    { name: 'removes an array element', doc: { l: ['a', 'b', 'c'] }, ops: [{ op: 'remove', path: '/l/1' }], expected: { l: ['a', 'c'] } },
    { name: 'removes the last element with -1', doc: { l: ['a', 'b'] }, ops: [{ op: 'remove', path: '/l/-1' }], expected: { l: ['a'] } },
    { name: 'removing a missing member fails', doc: { a: 1 }, ops: [{ op: 'remove', path: '/b' }], error: UNPROCESSABLE },
    { name: 'removing past the end fails', doc: { l: ['a'] }, ops: [{ op: 'remove', path: '/l/1' }], error: UNPROCESSABLE },
    { name: 'replaces a member', doc: { a: 1 }, ops: [{ op: 'replace', path: '/a', value: 'x' }], expected: { a: 'x' } },
    { name: 'replaces an array element', doc: { l: ['a', 'b'] }, ops: [{ op: 'replace', path: '/l/0', value: 'z' }], expected: { l: ['z', 'b'] } },
    { name: 'replacing a missing object member adds it (as kube-apiserver does)', doc: { a: 1 }, ops: [{ op: 'replace', path: '/b', value: 2 }], expected: { a: 1, b: 2 } },
    { name: 'replacing past the end of an array fails', doc: { l: ['a'] }, ops: [{ op: 'replace', path: '/l/1', value: 'b' }], error: UNPROCESSABLE },
    { name: 'replacing - fails', doc: { l: ['a'] }, ops: [{ op: 'replace', path: '/l/-', value: 'b' }], error: UNPROCESSABLE },
    { name: 'replaces the whole document', doc: { a: 1 }, ops: [{ op: 'replace', path: '', value: { b: 2 } }], expected: { b: 2 } },
    { name: 'the whole document must become an object or an array', doc: { a: 1 }, ops: [{ op: 'replace', path: '', value: 3 }], error: UNPROCESSABLE },
  ]);
});

describe('json patch: move, copy, test', () => {
  run([
    { name: 'moves a member', doc: { a: { x: 1 }, b: {} }, ops: [{ op: 'move', from: '/a/x', path: '/b/y' }], expected: { a: {}, b: { y: 1 } } },
    { name: 'moves an array element to another index', doc: { l: ['a', 'b', 'c'] }, ops: [{ op: 'move', from: '/l/0', path: '/l/2' }], expected: { l: ['b', 'c', 'a'] } },
    { name: 'moving into its own child fails', doc: { a: { b: {} } }, ops: [{ op: 'move', from: '/a', path: '/a/b/c' }], error: UNPROCESSABLE },
    { name: 'moving a missing member fails', doc: { a: 1 }, ops: [{ op: 'move', from: '/x', path: '/y' }], error: UNPROCESSABLE },
    { name: 'copies a value deeply', doc: { a: { x: [1] } }, ops: [{ op: 'copy', from: '/a', path: '/b' }, { op: 'add', path: '/b/x/-', value: 2 }], expected: { a: { x: [1] }, b: { x: [1, 2] } } },
    { name: 'copying a missing member copies null (as kube-apiserver does)', doc: { a: 1 }, ops: [{ op: 'copy', from: '/x', path: '/y' }], expected: { a: 1, y: null } },
    { name: 'copying from past the end of an array fails', doc: { l: [] }, ops: [{ op: 'copy', from: '/l/0', path: '/y' }], error: UNPROCESSABLE },
    { name: 'a passing test changes nothing', doc, ops: [{ op: 'test', path: '/spec/list', value: ['a', 'b', 'c'] }], expected: doc },
    { name: 'a failing test is the generic 422', doc, ops: [{ op: 'test', path: '/metadata/name', value: 'q' }], error: UNPROCESSABLE },
    { name: 'test compares objects deeply regardless of member order', doc: { a: { x: 1, y: 2 } }, ops: [{ op: 'test', path: '/a', value: { y: 2, x: 1 } }], expected: { a: { x: 1, y: 2 } } },
    { name: 'test of null matches a missing member', doc: { a: 1 }, ops: [{ op: 'test', path: '/b', value: null }], expected: { a: 1 } },
    { name: 'test of the whole document', doc: { a: 1 }, ops: [{ op: 'test', path: '', value: { a: 1 } }], expected: { a: 1 } },
    { name: 'a failing test stops the patch: earlier operations are not kept', doc: { a: 1 }, ops: [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 2 }], error: UNPROCESSABLE },
    { name: 'test without a value fails', doc: { a: 1 }, ops: [{ op: 'test', path: '/a' }], error: UNPROCESSABLE },
  ]);
});

describe('json patch: pointers and malformed operations', () => {
  run([
    { name: '~1 is a slash and ~0 a tilde', doc: { metadata: { annotations: {} } }, ops: [{ op: 'add', path: '/metadata/annotations/example.com~1a~0b', value: 'v' }], expected: { metadata: { annotations: { 'example.com/a~b': 'v' } } } },
    { name: '~01 decodes to ~1, not to a slash', doc: {}, ops: [{ op: 'add', path: '/~01', value: 'v' }], expected: { '~1': 'v' } },
    { name: 'the empty member name', doc: {}, ops: [{ op: 'add', path: '/', value: 1 }], expected: { '': 1 } },
    { name: 'a path without a slash fails', doc: {}, ops: [{ op: 'add', path: 'a', value: 1 }], error: UNPROCESSABLE },
    { name: 'an unknown op fails', doc: {}, ops: [{ op: 'merge', path: '/a', value: 1 }], error: UNPROCESSABLE },
    { name: 'a missing op fails', doc: {}, ops: [{ path: '/a', value: 1 }], error: UNPROCESSABLE },
    { name: 'a missing path fails', doc: {}, ops: [{ op: 'add', value: 1 }], error: UNPROCESSABLE },
    { name: 'a null operation fails', doc: {}, ops: [null], error: UNPROCESSABLE },
    { name: 'a null patch changes nothing', doc: { a: 1 }, ops: null, expected: { a: 1 } },
    { name: 'an empty patch changes nothing', doc: { a: 1 }, ops: [], expected: { a: 1 } },
    { name: 'a patch that is not a list is a 400', doc: {}, ops: { op: 'add' }, error: { code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' } },
    { name: 'an operation that is not an object is a 400', doc: {}, ops: [{ op: 'add', path: '/a', value: 1 }, 'x'], error: { code: 400, message: 'json: cannot unmarshal string into Go value of type jsonpatch.Operation' } },
  ]);

  it('refuses more than the maximum number of operations with 413', () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
    assert.throws(
      () => applyJsonPatch({ a: 1 }, ops),
      (e: unknown) =>
        e instanceof ApiError &&
        e.status.code === 413 &&
        e.status.reason === 'RequestEntityTooLarge' &&
        e.status.message === 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
    assert.deepEqual(applyJsonPatch({ a: 1 }, ops.slice(1)), { a: 1 });
  });

  it('bounds the bytes copy operations add (3 MiB by default)', () => {
    const big = { blob: 'x'.repeat(1024 * 1024) };
    const copies = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/blob', path: `/c${i}` }));
    assert.equal(Object.keys(applyJsonPatch(big, copies(2)) as object).length, 3);
    assert.throws(() => applyJsonPatch(big, copies(3)), (e: unknown) => e instanceof ApiError && e.status.code === 422);
    assert.throws(
      () => applyJsonPatch({ a: 'abcdef' }, copies(1).map((op) => ({ ...op, from: '/a' })), { maxCopyBytes: 5 }),
      (e: unknown) =>
        e instanceof ApiError &&
        (e as Error).cause === 'Unable to complete the copy, the accumulated size increase of copy is 8, exceeding the limit 5',
    );
  });

  it('answers 422 with reason Invalid and empty details', () => {
    assert.throws(
      () => applyJsonPatch({}, [{ op: 'remove', path: '/a' }]),
      (e: unknown) => {
        assert.ok(e instanceof ApiError);
        assert.deepEqual(e.status, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'the server rejected our request due to an error in our request',
          reason: 'Invalid',
          details: {},
          code: 422,
        });
        return true;
      },
    );
  });
});

describe('json patch: strict field checking (fieldValidation Warn and Strict)', () => {
  it('reports unknown fields of operations', () => {
    assert.deepEqual(jsonPatchStrictErrors([{ op: 'add', path: '/a', value: 1, extra: true }, { op: 'remove', path: '/b', Value: 1 }]), [
      'json patch unknown field "extra"',
      'json patch unknown field "Value"',
    ]);
    assert.deepEqual(jsonPatchStrictErrors([{ op: 'move', from: '/a', path: '/b' }]), []);
  });

  for (const [name, ops, message] of [
    ['a field of the wrong type', [{ op: 5, path: '/a' }], 'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string'],
    ['a document that is not a list', { op: 'add' }, 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp'],
    ['an operation that is not an object', [true], 'error decoding patch: json: cannot unmarshal bool into Go value of type handlers.jsonPatchOp'],
  ] as const) {
    it(`answers 400 for ${name}`, () => {
      assert.throws(
        () => jsonPatchStrictErrors(ops),
        (e: unknown) => e instanceof ApiError && e.status.code === 400 && e.status.reason === 'BadRequest' && e.status.message === message,
      );
    });
  }
});
