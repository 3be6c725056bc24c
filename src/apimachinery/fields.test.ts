import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeFieldValue, oneTermEqualSelector, parseFieldSelector, unsupportedFields } from './fields.js';

test('terms match with missing fields read as empty', () => {
  const fields = { 'metadata.name': 'a', 'status.phase': 'Running' };
  const cases: [string, boolean][] = [
    ['', true],
    ['metadata.name=a', true],
    ['metadata.name==a', true],
    ['metadata.name!=a', false],
    ['metadata.name=a,status.phase!=Pending', true],
    ['metadata.name=a,status.phase=Pending', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
  ];
  for (const [sel, want] of cases) assert.equal(parseFieldSelector(sel).matches(fields), want, sel);
});

test('escaped values', () => {
  const sel = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d');
  assert.equal(sel.requirements[0].value, 'a,b=c\\d');
  assert.equal(sel.matches({ 'metadata.name': 'a,b=c\\d' }), true);
  assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  assert.equal(sel.toString(), 'metadata.name=a\\,b\\=c\\\\d');
});

test('errors', () => {
  assert.throws(() => parseFieldSelector('metadata.name'), { message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'" });
  assert.throws(() => parseFieldSelector('a=b\\x'), { message: 'invalid field selector: invalid escape sequence: \\x' });
  assert.throws(() => parseFieldSelector('a=b=c'), { message: 'invalid field selector: unescaped character in value: 61' });
  assert.throws(() => parseFieldSelector('a=b\\'), { message: 'invalid field selector: invalid escape sequence: \\' });
});

test('exact match and unsupported fields', () => {
  const sel = parseFieldSelector('metadata.namespace=ns,metadata.name=x,spec.foo!=y');
  assert.equal(sel.requiresExactMatch('metadata.name'), 'x');
  assert.equal(sel.requiresExactMatch('spec.foo'), undefined);
  assert.deepEqual(unsupportedFields(sel, ['metadata.name', 'metadata.namespace']), ['spec.foo']);
  assert.equal(oneTermEqualSelector('metadata.name', 'n').matches({ 'metadata.name': 'n' }), true);
});
