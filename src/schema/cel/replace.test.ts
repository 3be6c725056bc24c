// `replace` in CEL rules: Go's semantics in linear time, a result too large refused as the
// per-call cost limit refuses it, and rules whose result could grow without bound refused
// at creation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileValidations } from './index.js';
import type { JSONSchemaProps } from '../../apimachinery/jsonschema.js';
import { goReplace, MAX_REPLACE_RESULT } from './library.js';

test("goReplace is Go's strings.Replace", () => {
  assert.equal(goReplace('aba', 'a', 'xyz'), 'xyzbxyz');
  assert.equal(goReplace('aaaa', 'a', 'b', 2n), 'bbaa');
  assert.equal(goReplace('aaaa', 'aa', 'b'), 'bb');
  assert.equal(goReplace('ab', '', 'x'), 'xaxbx');
  assert.equal(goReplace('ab', '', 'x', 2n), 'xaxb');
  assert.equal(goReplace('a😀', '', '-'), '-a-😀-');
  assert.equal(goReplace('abc', 'z', 'y'), 'abc');
  assert.equal(goReplace('abc', 'b', 'y', -1n), 'ayc');
  assert.equal(goReplace('abc', 'b', 'y', 0n), 'abc');
});

test('a result beyond the bound is cancelled before it is built', () => {
  const big = 'a'.repeat(1_000_000);
  assert.throws(() => goReplace(big, 'a', 'x'.repeat(20)), /operation cancelled: actual cost limit exceeded/);
  assert.throws(() => goReplace(big, '', 'x'.repeat(10)), /operation cancelled: actual cost limit exceeded/);
  assert.equal(goReplace(big, 'a', 'bb').length, 2_000_000);
  assert.ok(MAX_REPLACE_RESULT >= 2_000_000);
});

test('a rule replacing into unbounded strings is refused at creation; with bounds it is accepted and runs', () => {
  const rule = (props: Record<string, JSONSchemaProps>, r: string) => compileValidations({ type: 'object', properties: props, 'x-kubernetes-validations': [{ rule: r }] }, 'spec.validation.openAPIV3Schema');
  const unbounded = rule({ s: { type: 'string' }, t: { type: 'string' } }, "self.s.replace('', self.t).size() > 0");
  assert.equal(unbounded.errors.length > 0, true);
  assert.match(unbounded.errors[0]!.detail, /estimated rule cost exceeds budget by factor of/);
  const bounded = rule({ s: { type: 'string', maxLength: 1000 }, t: { type: 'string', maxLength: 100 } }, "self.s.replace('', self.t).size() > 0");
  assert.deepEqual(bounded.errors, []);
  assert.deepEqual(bounded.validator.validate({ s: 'a'.repeat(1000), t: 'b'.repeat(100) }, undefined), []);
  // A large receiver with a small replacement is within bounds and linear: the rule runs.
  const large = rule({ s: { type: 'string' } }, "self.s.replace('a', 'bb').size() == 2000000");
  assert.deepEqual(large.errors, []);
  assert.deepEqual(large.validator.validate({ s: 'a'.repeat(1_000_000) }, undefined), []);
});
