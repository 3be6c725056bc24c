import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo, RequestInfoError } from './request-info.js';

function info(method: string, url: string) {
  const u = new URL(url, 'https://x');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

describe('parseRequestInfo', () => {
  it('parses namespaced and cluster-scoped resource paths', () => {
    const a = info('GET', '/api/v1/namespaces/default/pods/p1/status');
    assert.deepEqual(
      [a.isResourceRequest, a.verb, a.apiPrefix, a.apiGroup, a.apiVersion, a.namespace, a.resource, a.name, a.subresource, a.collection],
      [true, 'get', 'api', '', 'v1', 'default', 'pods', 'p1', 'status', false],
    );
    const b = info('GET', '/apis/apps/v1/deployments');
    assert.deepEqual([b.verb, b.apiGroup, b.resource, b.namespace, b.collection], ['list', 'apps', 'deployments', '', true]);
    const c = info('DELETE', '/apis/apps/v1/namespaces/x/deployments');
    assert.equal(c.verb, 'deletecollection');
    const d = info('PATCH', '/apis/apps/v1/namespaces/x/deployments/d/scale');
    assert.deepEqual([d.verb, d.subresource], ['patch', 'scale']);
  });

  it('treats namespaces as a resource with the namespace set to its name', () => {
    const n = info('GET', '/api/v1/namespaces/foo');
    assert.deepEqual([n.resource, n.name, n.namespace, n.namespaceObject], ['namespaces', 'foo', 'foo', true]);
    const f = info('PUT', '/api/v1/namespaces/foo/finalize');
    assert.deepEqual([f.resource, f.name, f.subresource, f.verb, f.namespaceObject], ['namespaces', 'foo', 'finalize', 'update', true]);
    const l = info('GET', '/api/v1/namespaces');
    assert.deepEqual([l.resource, l.verb, l.namespace, l.namespaceObject], ['namespaces', 'list', '', undefined]);
    // A namespace's contents are scoped by it.
    assert.equal(info('GET', '/api/v1/namespaces/foo/configmaps/c').namespaceObject, undefined);
  });

  it('turns GET with watch=true and the legacy /watch/ paths into watch', () => {
    assert.equal(info('GET', '/api/v1/pods?watch=true').verb, 'watch');
    assert.equal(info('GET', '/api/v1/pods?watch=1').verb, 'watch');
    assert.equal(info('GET', '/api/v1/pods?watch=false').verb, 'list');
    const w = info('GET', '/api/v1/watch/namespaces/default/pods/p1');
    assert.deepEqual([w.verb, w.namespace, w.resource, w.name, w.legacyWatch, w.collection], ['watch', 'default', 'pods', 'p1', true, false]);
    assert.throws(() => info('GET', '/api/v1/watch'), RequestInfoError);
  });

  it('takes the name from an exact metadata.name field selector for authorization only', () => {
    const r = info('GET', '/api/v1/namespaces/d/configmaps?fieldSelector=metadata.name%3Dc1');
    assert.deepEqual([r.verb, r.name, r.collection], ['list', 'c1', true]);
    const w = info('GET', '/api/v1/namespaces/d/secrets?watch=1&fieldSelector=metadata.name%3D%3Ds1,type%3DOpaque&resourceVersion=5');
    assert.deepEqual([w.verb, w.name, w.collection], ['watch', 's1', true]);
  });

  it('reads the field selector as Kubernetes parses it, and names nothing when the list options do not decode', () => {
    const name = (query: string): string => info('GET', `/api/v1/namespaces/d/secrets?${query}`).name;
    // Escaped values are unescaped; terms are read in sorted order; spaces belong to the field name.
    assert.equal(name(`fieldSelector=${encodeURIComponent('metadata.name=a\\,b')}`), 'a,b');
    assert.equal(name(`fieldSelector=${encodeURIComponent('metadata.name=z,metadata.name=a')}`), 'a');
    assert.equal(name(`fieldSelector=${encodeURIComponent('metadata.name = s1')}`), '');
    assert.equal(name(`fieldSelector=${encodeURIComponent('metadata.name!=s1')}`), '');
    // A selector, limit or timeout that does not decode: no name (the list answers the error).
    for (const bad of ['metadata.name=s1,junk', 'metadata.name=a\\x']) assert.equal(name(`fieldSelector=${encodeURIComponent(bad)}`), '', bad);
    assert.equal(name('fieldSelector=metadata.name%3Ds1&labelSelector=%21%21'), '');
    assert.equal(name('fieldSelector=metadata.name%3Ds1&limit=ten'), '');
    assert.equal(name('fieldSelector=metadata.name%3Ds1&timeoutSeconds=99999999999999999999'), '');
    assert.equal(name('fieldSelector=metadata.name%3Ds1&limit=%2B5&timeoutSeconds=-1'), 's1');
    // Names that are not path segments are never taken.
    for (const bad of ['..', '.', 'a/b', 'a%b']) assert.equal(name(`fieldSelector=${encodeURIComponent(`metadata.name=${bad}`)}`), '', bad);
    // Legacy watch paths and deletecollection keep no name, as in Kubernetes.
    assert.equal(info('GET', '/api/v1/watch/namespaces/d/secrets?fieldSelector=metadata.name%3Ds1').name, '');
    const d = info('DELETE', '/api/v1/namespaces/d/secrets?fieldSelector=metadata.name%3Ds1');
    assert.deepEqual([d.verb, d.name], ['deletecollection', '']);
  });

  it('classifies discovery and other paths as non-resource requests', () => {
    for (const p of ['/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/healthz', '/version', '/']) {
      const r = info('GET', p);
      assert.equal(r.isResourceRequest, false, p);
      assert.equal(r.verb, 'get');
    }
  });
});
