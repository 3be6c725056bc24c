import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatchOfType } from './patch-types.js';
import { fixtureSchema, TYPE } from '../testing/patch/schema-fixture.js';
import { ApiError } from '../apimachinery/errors.js';

const pod = { metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'web', image: 'x' }] } };

function status415(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status.code, 415);
    assert.equal(e.status.reason, 'UnsupportedMediaType');
    assert.equal(e.status.details, undefined);
    return e.status.message ?? '';
  }
  assert.fail('expected a 415');
}

describe('choosing the patch format by Content-Type', () => {
  it('routes each media type, ignoring parameters', () => {
    const schema = fixtureSchema(TYPE.pod);
    assert.deepEqual(applyPatchOfType('application/json-patch+json', pod, [{ op: 'remove', path: '/metadata/labels' }], schema), {
      ...pod,
      metadata: { name: 'p' },
    });
    assert.deepEqual(
      applyPatchOfType('application/merge-patch+json; charset=utf-8', pod, { spec: { containers: [{ name: 'log' }] } }, schema),
      { ...pod, spec: { containers: [{ name: 'log' }] } },
    );
    assert.deepEqual(
      applyPatchOfType('application/strategic-merge-patch+json', pod, { spec: { containers: [{ name: 'log' }] } }, schema),
      { ...pod, spec: { containers: [{ name: 'log' }, { name: 'web', image: 'x' }] } },
    );
  });

  it('answers 415 with the accepted types of a built-in kind', () => {
    const message = status415(() => applyPatchOfType('application/json', pod, {}, fixtureSchema(TYPE.pod)));
    assert.equal(
      message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('answers 415 to a strategic merge patch on a kind without strategic information', () => {
    const message = status415(() => applyPatchOfType('application/strategic-merge-patch+json', pod, {}, undefined));
    assert.equal(
      message,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    assert.deepEqual(applyPatchOfType('application/merge-patch+json', { a: 1 }, { b: 2 }, undefined), { a: 1, b: 2 });
  });
});
