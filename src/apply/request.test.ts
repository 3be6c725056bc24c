import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { metaGroup } from '../naming/index.js';
import { checkApplyVersion, decodeApplyConfiguration, parseForce, validateApplyOptions } from './request.js';

const bytes = (s: string) => new TextEncoder().encode(s);

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  assert.fail('expected an ApiError');
}

describe('apply request', () => {
  it('reads YAML and JSON bodies, and answers 400 to anything else', () => {
    assert.deepEqual(decodeApplyConfiguration(bytes('apiVersion: v1\nkind: ConfigMap\ndata: {a: "1"}\n')), { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    assert.deepEqual(decodeApplyConfiguration(bytes('{"kind":"ConfigMap"}')), { kind: 'ConfigMap' });
    const err = apiError(() => decodeApplyConfiguration(bytes('a: [1')));
    assert.equal(err.code, 400);
    assert.match(err.message, /^error decoding YAML: /);
    assert.equal(apiError(() => decodeApplyConfiguration(bytes('- 1\n'))).code, 400);
  });

  it('requires a printable fieldManager of at most 128 bytes', () => {
    const missing = apiError(() => validateApplyOptions(null));
    assert.equal(missing.code, 422);
    assert.equal(missing.reason, 'Invalid');
    assert.equal(missing.message, `PatchOptions.${metaGroup()} "" is invalid: fieldManager: Required value: is required for apply patch`);
    const long = apiError(() => validateApplyOptions('x'.repeat(129)));
    assert.equal(long.code, 422);
    assert.equal(long.message, `PatchOptions.${metaGroup()} "" is invalid: fieldManager: Too long: must have at most 128 bytes`);
    const odd = apiError(() => validateApplyOptions('a\u0001'));
    assert.equal(odd.message, `PatchOptions.${metaGroup()} "" is invalid: fieldManager: Invalid value: "a\\u0001": invalid character U+0001 (at position 1)`);
    assert.equal(validateApplyOptions('kubectl'), 'kubectl');
  });

  it('parses force as Go parses a boolean and checks the version', () => {
    assert.equal(parseForce('true'), true);
    assert.equal(parseForce('1'), true);
    assert.equal(parseForce('false'), false);
    assert.equal(parseForce(null), false);
    assert.equal(apiError(() => checkApplyVersion({ apiVersion: 'apps/v1beta1' }, 'apps/v1')).code, 400);
  });
});
