import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlavor } from '../naming/index.js';
import { mandatoryFlowSchemas, suggestedFlowSchemas } from './bootstrap.js';
import { parseFlowSchema } from './parse.js';
import { classify, compareFlowSchemas, flowDistinguisher, nonResourceURLMatches, subjectMatches } from './rules.js';
import type { FlowSchema, RequestAttributes, RequestDigest } from './types.js';

const resource = (verb: string, apiGroup: string, res: string, namespace = '', subresource = ''): RequestAttributes => ({
  isResourceRequest: true,
  path: '',
  verb,
  apiGroup,
  apiVersion: 'v1',
  namespace,
  resource: res,
  subresource,
  name: '',
});
const nonResource = (verb: string, path: string): RequestAttributes => ({ isResourceRequest: false, path, verb, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' });
const user = (username: string, ...groups: string[]) => ({ username, groups: [...groups, 'system:authenticated'] });

function bootstrapSchemas(): FlowSchema[] {
  return [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]
    .map((o) => {
      const p = parseFlowSchema(o);
      assert.ok('ok' in p);
      return p.ok;
    })
    .sort(compareFlowSchemas);
}

describe('classification with the bootstrap FlowSchemas', () => {
  for (const flavor of ['orch', 'kubernetes'] as const) {
    it(`matches as kube-apiserver 1.27 does (${flavor})`, () => {
      setFlavor(flavor);
      const coordination = flavor === 'orch' ? 'coordination.orch.io' : 'coordination.k8s.io';
      const systemNs = flavor === 'orch' ? 'orch-system' : 'kube-system';
      const schemas = bootstrapSchemas();
      const cases: [string, RequestDigest, string][] = [
        ['admins are exempt', { user: user('admin', 'system:masters'), info: resource('create', '', 'pods', 'ns') }, 'exempt'],
        ['probes are exempt', { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, info: nonResource('get', '/readyz') }, 'probes'],
        ['probe subpaths too (1.27 prefix rule)', { user: user('alice'), info: nonResource('get', '/healthz/etcd') }, 'probes'],
        ['a probe POST is not', { user: user('alice'), info: nonResource('post', '/healthz') }, 'global-default'],
        ['controller-manager leases', { user: user('system:kube-controller-manager'), info: resource('update', coordination, 'leases', systemNs) }, 'system-leader-election'],
        ['controller-manager endpoints', { user: user('system:kube-controller-manager'), info: resource('update', '', 'endpoints', 'default') }, 'endpoint-controller'],
        ['controller-manager other work', { user: user('system:kube-controller-manager'), info: resource('list', 'apps', 'deployments') }, 'kube-controller-manager'],
        ['scheduler', { user: user('system:kube-scheduler'), info: resource('create', '', 'pods', 'ns', 'binding') }, 'kube-scheduler'],
        ['system service account leases', { user: user(`system:serviceaccount:${systemNs}:foo`, 'system:serviceaccounts'), info: resource('get', coordination, 'leases', systemNs) }, 'system-leader-election'],
        ['system service account configmaps', { user: user(`system:serviceaccount:${systemNs}:foo`, 'system:serviceaccounts'), info: resource('update', '', 'configmaps', 'x') }, 'workload-leader-election'],
        ['system service account otherwise', { user: user(`system:serviceaccount:${systemNs}:foo`, 'system:serviceaccounts'), info: resource('list', '', 'pods') }, 'kube-system-service-accounts'],
        ['a namespace named like the system one is not it', { user: user(`system:serviceaccount:${systemNs}x:foo`, 'system:serviceaccounts'), info: resource('list', '', 'pods') }, 'service-accounts'],
        ['other service accounts', { user: user('system:serviceaccount:default:app', 'system:serviceaccounts'), info: resource('list', '', 'pods') }, 'service-accounts'],
        ['node status', { user: user('system:node:n1', 'system:nodes'), info: resource('patch', '', 'nodes', '', 'status') }, 'system-node-high'],
        ['node leases', { user: user('system:node:n1', 'system:nodes'), info: resource('update', coordination, 'leases', 'node-lease') }, 'system-node-high'],
        ['node pods', { user: user('system:node:n1', 'system:nodes'), info: resource('list', '', 'pods') }, 'system-nodes'],
        ['ordinary users', { user: user('alice'), info: resource('create', '', 'configmaps', 'ns') }, 'global-default'],
        ['anonymous', { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, info: nonResource('get', '/version') }, 'global-default'],
        ['no group at all falls to nothing', { user: { username: 'x', groups: [] }, info: resource('get', '', 'pods', 'ns') }, ''],
      ];
      for (const [what, digest, want] of cases) assert.equal(classify(digest, schemas)?.name ?? '', want, what);
      setFlavor('orch');
    });
  }
});

describe('rules', () => {
  it('ServiceAccount subjects match by namespace and name, `*` by namespace', () => {
    const sa = (namespace: string, name: string) => ({ kind: 'ServiceAccount' as const, serviceAccount: { namespace, name } });
    assert.equal(subjectMatches(user('system:serviceaccount:a:b'), sa('a', 'b')), true);
    assert.equal(subjectMatches(user('system:serviceaccount:a:bc'), sa('a', 'b')), false);
    assert.equal(subjectMatches(user('system:serviceaccount:a:b'), sa('a', '*')), true);
    assert.equal(subjectMatches(user('system:serviceaccount:ab:c'), sa('a', '*')), false);
    assert.equal(subjectMatches(user('a:b'), sa('a', '*')), false);
    assert.equal(subjectMatches(user('bob'), { kind: 'User', user: { name: '*' } }), true);
    assert.equal(subjectMatches(user('bob'), { kind: 'Group', group: { name: '*' } }), true);
    assert.equal(subjectMatches(user('bob'), { kind: 'User' }), false);
  });

  it('non-resource URLs: exact, `*`, prefix with `/*`, and the path below a rule', () => {
    const table: [string[], string, boolean][] = [
      [['*'], '/anything', true],
      [['/apis/*'], '/apis/apps', true],
      [['/apis/*'], '/apis', false],
      [['/version'], '/version', true],
      [['/version'], '/versions', false],
      [['/version'], '/version/x', true],
      [['/healthz', '/livez'], '/livez', true],
    ];
    for (const [urls, path, want] of table) assert.equal(nonResourceURLMatches(urls, path), want, `${urls.join(',')} ${path}`);
  });

  it('a wildcard counts only alone in its list; cluster-scoped requests need clusterScope', () => {
    const fs: FlowSchema = {
      name: 'x',
      uid: '',
      spec: {
        priorityLevelConfiguration: { name: 'p' },
        matchingPrecedence: 1,
        rules: [{ subjects: [{ kind: 'Group', group: { name: '*' } }], resourceRules: [{ verbs: ['get', '*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] }],
      },
    };
    assert.equal(classify({ user: user('a'), info: resource('get', '', 'pods', 'ns') }, [fs])?.name, 'x');
    assert.equal(classify({ user: user('a'), info: resource('list', '', 'pods', 'ns') }, [fs]), undefined);
    assert.equal(classify({ user: user('a'), info: resource('get', '', 'nodes') }, [fs]), undefined);
  });

  it('orders by precedence, then name; distinguishes by user or namespace', () => {
    const mk = (name: string, p: number): FlowSchema => ({ name, uid: '', spec: { priorityLevelConfiguration: { name: 'x' }, matchingPrecedence: p } });
    assert.deepEqual([mk('b', 2), mk('c', 1), mk('a', 2)].sort(compareFlowSchemas).map((f) => f.name), ['c', 'a', 'b']);
    const digest = { user: user('alice'), info: resource('get', '', 'pods', 'ns1') };
    assert.equal(flowDistinguisher(digest, { ...mk('a', 1), spec: { ...mk('a', 1).spec, distinguisherMethod: { type: 'ByUser' } } }), 'alice');
    assert.equal(flowDistinguisher(digest, { ...mk('a', 1), spec: { ...mk('a', 1).spec, distinguisherMethod: { type: 'ByNamespace' } } }), 'ns1');
    assert.equal(flowDistinguisher(digest, mk('a', 1)), '');
  });
});
