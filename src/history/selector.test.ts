import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError } from '../apimachinery/errors.js';
import { parseRevisionSelector } from './selector.js';
import { operationName } from './operation.js';
import { parseRevisionName, revisionName } from './revision.js';

it('reads the target from the field selector', () => {
  assert.deepEqual(parseRevisionSelector('target.resource=configmaps'), { group: '', resource: 'configmaps' });
  assert.deepEqual(parseRevisionSelector('target.name=web,target.resource=deployments,target.group=apps'), { group: 'apps', resource: 'deployments', name: 'web' });
  assert.deepEqual(parseRevisionSelector('target.resource=widgets,target.group=example.com,target.uid=0a1b-2c'), { group: 'example.com', resource: 'widgets', uid: '0a1b-2c' });
  assert.deepEqual(parseRevisionSelector('target.resource=clusterroles,target.name=system:basic-user'), { group: '', resource: 'clusterroles', name: 'system:basic-user' });
});

it('answers 400 for what is not a target', () => {
  const bad = [
    undefined,
    '',
    'target.name=x',
    'target.resource=ConfigMaps',
    'target.resource=__proto__',
    'target.resource=configmaps,target.group=a..b',
    'target.resource=configmaps,target.group=__proto__',
    'target.resource=configmaps,target.name=..',
    'target.resource=configmaps,target.name=a/b',
    'target.resource=configmaps,target.name=a%2f',
    'target.resource=configmaps,target.name=__proto__',
    'target.resource=configmaps,target.name=a\u0000b',
    'target.resource=configmaps,target.uid=../x',
    'target.resource=configmaps,metadata.name=x',
    'target.resource=configmaps,target.resource=secrets',
    'target.resource!=configmaps',
    `target.resource=configmaps,target.name=${'a'.repeat(254)}`,
    `target.resource=${'a'.repeat(5000)}`,
    'target.resource',
  ];
  for (const s of bad) {
    assert.throws(
      () => parseRevisionSelector(s),
      (e: unknown) => e instanceof ApiError && e.code === 400,
      String(s),
    );
  }
  assert.throws(() => parseRevisionSelector(''), /target\.resource is required/);
});

it('names operations and revisions', () => {
  assert.equal(operationName('create'), 'Create');
  assert.equal(operationName('update', 'status'), 'UpdateStatus');
  assert.equal(operationName('patch', 'status'), 'PatchStatus');
  assert.equal(operationName('apply', 'status'), 'ApplyStatus');
  assert.equal(operationName('update', 'scale'), 'Update');
  assert.equal(operationName('delete'), 'Delete');
  assert.equal(revisionName('abc-1', 42), 'abc-1.42');
  assert.deepEqual(parseRevisionName('abc-1.42'), { uid: 'abc-1', resourceVersion: 42 });
  for (const bad of ['abc', '.1', 'abc.', 'abc.0', 'abc.01', 'abc.1e3', 'abc.-1', 'abc.99999999999999999']) assert.equal(parseRevisionName(bad), undefined, bad);
});
