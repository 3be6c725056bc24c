import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dns1035LabelName, dns1123LabelName, dns1123SubdomainName, pathSegmentName, strictPathSegmentName } from './names.js';

test('a generateName prefix may end with a dash: its last two characters are masked', () => {
  assert.deepEqual(dns1123SubdomainName('web-', true), []);
  assert.deepEqual(dns1123LabelName('web-', true), []);
  assert.deepEqual(dns1035LabelName('web-', true), []);
  // The character before the dash is masked too, so it may be one a name cannot end with.
  assert.deepEqual(dns1123SubdomainName('a.-', true), []);
  assert.notDeepEqual(dns1123SubdomainName('web-', false), []);
  assert.notDeepEqual(dns1123SubdomainName('-', true), []);
});

test('path segment names: a prefix may be . or .., except under the strict rule', () => {
  assert.deepEqual(pathSegmentName('..', false), ["may not be '..'"]);
  assert.deepEqual(pathSegmentName('..', true), []);
  assert.deepEqual(strictPathSegmentName('..', true), ["may not be '..'"]);
  assert.deepEqual(pathSegmentName('a/b%c', true), ["may not contain '/'", "may not contain '%'"]);
});
