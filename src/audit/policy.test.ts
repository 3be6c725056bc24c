import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setFlavor } from '../naming/index.js';
import { evaluatePolicy, loadPolicyFile, parsePolicy, type PolicyAttributes } from './policy.js';

setFlavor('orch');

const POLICY = `
apiVersion: audit.orch.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    userGroups: ["system:nodes"]
    nonResourceURLs: ["/healthz*", "/version"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods/log", "*/status"]
  - level: Request
    namespaces: ["kube-system"]
    resources:
      - group: "apps"
        resources: ["deployments"]
        resourceNames: ["controller"]
  - level: Request
    resources:
      - group: "rbac.authorization.k8s.io"
  - level: RequestResponse
    omitStages: [ResponseStarted]
    omitManagedFields: true
    resources:
      - group: "batch"
        resources: ["jobs/*"]
  - level: Metadata
    nonResourceURLs: ["/metrics"]
`;

const user = (username: string, ...groups: string[]): PolicyAttributes['user'] => ({ username, groups });

function res(resource: string, o: Partial<PolicyAttributes> = {}): PolicyAttributes {
  const [r, sub] = resource.split('/');
  return { user: user('alice', 'system:authenticated'), verb: 'get', isResourceRequest: true, path: '/x', apiGroup: '', apiVersion: 'v1', resource: r!, subresource: sub ?? '', namespace: 'default', name: 'n', ...o };
}
function nonres(path: string, o: Partial<PolicyAttributes> = {}): PolicyAttributes {
  return { user: user('alice'), verb: 'get', isResourceRequest: false, path, apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '', ...o };
}

describe('audit policy evaluation', () => {
  const policy = parsePolicy(POLICY);
  const cases: [string, PolicyAttributes, string][] = [
    ['user and verb rule', res('pods', { user: user('system:kube-proxy'), verb: 'watch' }), 'None'],
    ['same user, other verb: falls through to no rule', res('pods', { user: user('system:kube-proxy'), verb: 'list' }), 'None'],
    ['group and non-resource prefix', nonres('/healthz/ready', { user: user('n1', 'system:nodes') }), 'None'],
    ['non-resource exact', nonres('/version', { user: user('n1', 'system:nodes') }), 'None'],
    ['secrets at Metadata', res('secrets'), 'Metadata'],
    ['configmaps at Metadata', res('configmaps', { verb: 'create' }), 'Metadata'],
    ['pods/log exact', res('pods/log'), 'RequestResponse'],
    ['*/status', res('deployments/status', { apiGroup: '' }), 'RequestResponse'],
    ['pods alone match neither pods/log nor */status', res('pods'), 'None'],
    ['resourceNames and namespaces', res('deployments', { apiGroup: 'apps', namespace: 'kube-system', name: 'controller' }), 'Request'],
    ['other name', res('deployments', { apiGroup: 'apps', namespace: 'kube-system', name: 'other' }), 'None'],
    ['other namespace', res('deployments', { apiGroup: 'apps', namespace: 'default', name: 'controller' }), 'None'],
    ['upstream group name matches the served one', res('roles', { apiGroup: 'rbac.authorization.orch.io' }), 'Request'],
    ['jobs/* matches a subresource', res('jobs/status', { apiGroup: 'batch' }), 'RequestResponse'],
    ['group resource in another group does not match', res('jobs', { apiGroup: 'apps' }), 'None'],
    ['/metrics: non-resource rule', nonres('/metrics'), 'Metadata'],
    ['/metrics rule does not match a resource request', res('metrics'), 'None'],
    ['unauthenticated request matches no user rule', res('secrets', { user: undefined }), 'Metadata'],
  ];
  for (const [name, attrs, level] of cases) {
    it(name, () => assert.equal(evaluatePolicy(policy, attrs).level, level));
  }

  it('joins omitStages of the policy and the rule; omitManagedFields per rule', () => {
    const jobs = evaluatePolicy(policy, res('jobs/status', { apiGroup: 'batch' }));
    assert.deepEqual([...jobs.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(jobs.omitManagedFields, true);
    const secrets = evaluatePolicy(policy, res('secrets'));
    assert.deepEqual(secrets.omitStages, ['RequestReceived']);
    assert.equal(secrets.omitManagedFields, false);
  });

  it('a rule naming users never matches a request without a user', () => {
    const p = parsePolicy('{"apiVersion":"audit.orch.io/v1","kind":"Policy","rules":[{"level":"Metadata","users":["a"]},{"level":"Request","userGroups":["g"]}]}');
    assert.equal(evaluatePolicy(p, res('pods', { user: undefined })).level, 'None');
  });

  it('a rule with neither resources nor URLs matches both kinds of request', () => {
    const p = parsePolicy('{"apiVersion":"audit.orch.io/v1","kind":"Policy","rules":[{"level":"Request","verbs":["get"]}]}');
    assert.equal(evaluatePolicy(p, res('pods')).level, 'Request');
    assert.equal(evaluatePolicy(p, nonres('/api')).level, 'Request');
    assert.equal(evaluatePolicy(p, nonres('/api', { verb: 'post' })).level, 'None');
  });
});

describe('audit policy files', () => {
  const head = 'apiVersion: audit.orch.io/v1\nkind: Policy\n';
  const bad: [string, string, RegExp][] = [
    ['no rules', head, /loaded illegal policy with 0 rules/],
    ['empty rules', `${head}rules: []\n`, /0 rules/],
    ['bad level', `${head}rules:\n- level: Everything\n`, /rules\[0\]\.level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"/],
    ['missing level', `${head}rules:\n- users: [a]\n`, /rules\[0\]\.level: Required value/],
    ['bad stage', `${head}omitStages: [Done]\nrules:\n- level: None\n`, /omitStages\[0\]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic/],
    ['URL without slash', `${head}rules:\n- level: None\n  nonResourceURLs: [healthz]\n`, /non-resource URL rules must begin with a '\/' character/],
    ['wildcard inside', `${head}rules:\n- level: None\n  nonResourceURLs: ["/a*/b"]\n`, /wildcards '\*' must be the final character/],
    ['resources and URLs', `${head}rules:\n- level: None\n  nonResourceURLs: ["/a"]\n  namespaces: [x]\n`, /rules cannot apply to both regular resources and non-resource URLs/],
    ['resourceNames alone', `${head}rules:\n- level: None\n  resources:\n  - group: ""\n    resourceNames: [a]\n`, /using resourceNames requires at least one resource/],
    ['group with a version', `${head}rules:\n- level: None\n  resources:\n  - group: rbac.authorization.k8s.io/v1\n`, /resources\[0\]\.group: Invalid value: "rbac.authorization.k8s.io\/v1"/],
    ['wrong apiVersion', 'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: None\n', /unknown group version field audit.k8s.io\/v1beta1/],
    ['wrong kind', 'apiVersion: audit.orch.io/v1\nkind: Pod\nrules:\n- level: None\n', /unknown group version field/],
    ['no kind', 'rules: []\n', /Object 'Kind' is missing/],
    ['YAML syntax error names the line', `${head}rules:\n- level: None\n  users: [a\n`, /failed decoding: .*line \d+/],
    ['users not strings', `${head}rules:\n- level: None\n  users: [{a: 1}]\n`, /rules\[0\]\.users: expected a list of strings/],
    ['rules not a list', `${head}rules: {level: None}\n`, /rules: expected a list/],
    ['a scalar document', '42', /not an object/],
    ['deep nesting', `${head}rules: ${'['.repeat(5000)}${']'.repeat(5000)}\n`, /failed decoding/],
  ];
  for (const [name, text, message] of bad) {
    it(`refuses ${name}`, () => assert.throws(() => parsePolicy(text), message));
  }

  it('reads __proto__ keys as ordinary (unknown) fields and warns about them', () => {
    const warnings: string[] = [];
    const p = parsePolicy('{"apiVersion":"audit.orch.io/v1","kind":"Policy","__proto__":{"omitManagedFields":true},"rules":[{"level":"Metadata","__proto__":{"level":"None"}}]}', (w) => warnings.push(w));
    assert.equal(p.omitManagedFields, false);
    assert.equal(p.rules[0]!.level, 'Metadata');
    assert.equal(({} as Record<string, unknown>).level, undefined);
    assert.match(warnings.join('\n'), /falling back to lenient decoding: unknown fields "__proto__", "rules\[0\].__proto__"/);
  });

  it('reads YAML aliases only within bounds', () => {
    const bomb = `${head}a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nrules:\n- level: None\n`;
    assert.throws(() => parsePolicy(bomb), /excessive aliasing/);
  });

  it('names the file in every error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'));
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, `${head}rules:\n- level: Loud\n`);
    assert.throws(() => loadPolicyFile(file), (e: Error) => e.message.startsWith('loading audit policy file: ') && e.message.endsWith(`: from file ${file}`));
    assert.throws(() => loadPolicyFile(join(dir, 'missing.yaml')), /loading audit policy file: failed to read file path ".*missing.yaml"/);
  });

  it('takes the kubernetes flavor group in that flavor', () => {
    setFlavor('kubernetes');
    try {
      assert.equal(parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n').rules.length, 1);
      assert.throws(() => parsePolicy('apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n'), /unknown group version/);
    } finally {
      setFlavor('orch');
    }
  });
});
