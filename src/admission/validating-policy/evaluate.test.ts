import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePolicy } from '../../apis/admissionregistration/policies.js';
import type { AdmissionAttributes } from '../types.js';
import { evaluatePolicy, measuredDyn } from './evaluate.js';
import { matchResources, type MatchDeps } from './matching.js';

const request = { operation: 'CREATE', name: 'x', namespace: 'ns', userInfo: { username: 'alice', groups: ['dev'] } };

function run(spec: Record<string, unknown>, object: unknown, opts: { params?: unknown; failurePolicy?: 'Fail' | 'Ignore'; oldObject?: unknown } = {}) {
  const compiled = compilePolicy(spec);
  assert.deepEqual(compiled.errors, []);
  return evaluatePolicy(compiled, spec.paramKind !== undefined, opts.failurePolicy ?? 'Fail', { object, oldObject: opts.oldObject ?? null, request, params: opts.params });
}

describe('policy evaluation', () => {
  const cases: { name: string; spec: Record<string, unknown>; object: unknown; params?: unknown; failurePolicy?: 'Fail' | 'Ignore'; want: { action: string; message?: string; reason?: string; error?: boolean }[] }[] = [
    { name: 'a true validation admits', spec: { validations: [{ expression: 'object.spec.replicas < 5' }] }, object: { spec: { replicas: 3 } }, want: [{ action: 'admit' }] },
    { name: 'a false one denies with the expression', spec: { validations: [{ expression: 'object.spec.replicas < 5 ' }] }, object: { spec: { replicas: 7 } }, want: [{ action: 'deny', message: 'failed expression: object.spec.replicas < 5', reason: 'Invalid' }] },
    { name: 'the static message wins over the expression', spec: { validations: [{ expression: 'false', message: ' no ', reason: 'Forbidden' }] }, object: {}, want: [{ action: 'deny', message: 'no', reason: 'Forbidden' }] },
    {
      name: 'messageExpression wins over the static message',
      spec: { validations: [{ expression: 'false', message: 'static', messageExpression: "'user ' + request.userInfo.username" }] },
      object: {},
      want: [{ action: 'deny', message: 'user alice' }],
    },
    {
      name: 'a multi-line or empty evaluated message falls back',
      spec: { validations: [{ expression: 'false', message: 'static', messageExpression: "'a\\nb'" }, { expression: 'false', messageExpression: "'  '" }] },
      object: {},
      want: [{ action: 'deny', message: 'static' }, { action: 'deny', message: 'failed expression: false' }],
    },
    {
      name: 'a runtime error denies under Fail',
      spec: { validations: [{ expression: 'object.spec.missing == 1' }] },
      object: { spec: {} },
      want: [{ action: 'deny', error: true, message: "expression 'object.spec.missing == 1' resulted in error: no such key: missing" }],
    },
    { name: 'a runtime error admits under Ignore', spec: { validations: [{ expression: 'object.spec.missing == 1' }] }, object: { spec: {} }, failurePolicy: 'Ignore', want: [{ action: 'admit', error: true }] },
    {
      name: 'params are read',
      spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.n <= int(params.data.max)' }] },
      object: { n: 3 },
      params: { data: { max: '2' } },
      want: [{ action: 'deny' }],
    },
    {
      name: 'a null param is an error, not a pass',
      spec: { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'object.n <= int(params.data.max)' }] },
      object: { n: 3 },
      params: null,
      want: [{ action: 'deny', error: true }],
    },
    { name: '__proto__ is an ordinary key', spec: { validations: [{ expression: "'__proto__' in object.metadata.labels" }] }, object: JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}'), want: [{ action: 'admit' }] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = run(c.spec, c.object, { params: c.params, failurePolicy: c.failurePolicy });
      assert.equal(r.decisions.length, c.want.length);
      c.want.forEach((w, i) => {
        const d = r.decisions[i];
        assert.equal(d.action, w.action);
        if (w.message !== undefined) assert.equal(d.message, w.message);
        if (w.reason !== undefined) assert.equal(d.reason, w.reason);
        if (w.error !== undefined) assert.equal(d.error, w.error);
      });
    });
  }

  it('skips the validations when a match condition is false, and fails on its error', () => {
    const spec = { matchConditions: [{ name: 'only-big', expression: 'object.n > 10' }], validations: [{ expression: 'false' }] };
    assert.deepEqual(run(spec, { n: 1 }).decisions, []);
    assert.equal(run(spec, { n: 11 }).decisions[0].action, 'deny');
    const broken = run(spec, {});
    assert.equal(broken.decisions[0].error, true);
    assert.match(broken.decisions[0].message, /expression 'object.n > 10' resulted in error/);
  });

  it('publishes audit annotations; empty and null values are left out', () => {
    const r = run({ auditAnnotations: [{ key: 'who', valueExpression: 'request.userInfo.username' }, { key: 'none', valueExpression: 'null' }, { key: 'blank', valueExpression: "' '" }] }, {});
    assert.deepEqual(r.annotations, [{ key: 'who', value: 'alice' }]);
  });

  it('stops an expression over the per-call cost limit on a large object', () => {
    const items = Array.from({ length: 3000 }, (_, i) => i);
    const r = run({ validations: [{ expression: 'object.items.all(a, object.items.all(b, a + b >= 0))' }] }, { items });
    assert.equal(r.decisions[0].action, 'deny');
    assert.match(r.decisions[0].message, /resulted in error: operation cancelled: actual cost limit exceeded$/);
    // The same expression on a small object is cheap enough.
    assert.equal(run({ validations: [{ expression: 'object.items.all(a, object.items.all(b, a + b >= 0))' }] }, { items: [1, 2] }).decisions[0].action, 'admit');
  });

  it('runs out of the runtime budget across many expensive validations', () => {
    const items = Array.from({ length: 300 }, (_, i) => i);
    const expression = 'object.items.all(a, object.items.all(b, a + b >= 0))';
    const r = run({ validations: Array.from({ length: 60 }, () => ({ expression })) }, { items });
    assert.ok(r.decisions.some((d) => d.message === 'validation failed due to running out of cost budget, no further validation rules will be run'), JSON.stringify(r.decisions.slice(0, 2)));
  });

  it('a user-supplied catastrophic pattern on a long string is cancelled at once', { timeout: 20_000 }, () => {
    const expression = 'object.spec.s.matches(object.spec.p)';
    for (const p of ['(a+)+$', '[a-z]{999}[0-9]', '(?:a|b)*a(?:a|b){40}$']) {
      const started = performance.now();
      const r = run({ validations: [{ expression }] }, { spec: { s: `${'a'.repeat(1_000_000)}!`, p } });
      const ms = performance.now() - started;
      assert.equal(r.decisions[0].action, 'deny');
      assert.equal(r.decisions[0].message, `expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`);
      assert.ok(ms < 200, `${p}: ${ms.toFixed(0)} ms`);
    }
    // Where the text is short enough for the pattern, it is matched. (An untyped object's
    // strings are all bounded by its largest part before the run: keep it small.)
    assert.equal(run({ validations: [{ expression: `!${expression}` }] }, { spec: { s: `${'a'.repeat(2_000)}!`, p: '^(a+)+$' } }).decisions[0].action, 'admit');
    assert.equal(run({ validations: [{ expression: 'object.spec.s.find(object.spec.p) == "aaab"' }] }, { spec: { s: `${'a'.repeat(2_000)}b`, p: 'a{3}b' } }).decisions[0].action, 'admit');
  });

  it('replace over a large string runs in linear time, and one that would build an enormous string is cancelled', { timeout: 20_000 }, () => {
    let started = performance.now();
    const linear = run({ validations: [{ expression: 'object.spec.s.replace("a", "bb").size() == 2000000' }] }, { spec: { s: 'a'.repeat(1_000_000) } });
    assert.equal(linear.decisions[0].action, 'admit', linear.decisions[0].message);
    assert.ok(performance.now() - started < 500);
    started = performance.now();
    const huge = run({ validations: [{ expression: 'object.spec.s.replace("a", object.spec.s).size() > 0' }] }, { spec: { s: 'a'.repeat(100_000) } });
    assert.match(huge.decisions[0].message, /resulted in error: operation cancelled: actual cost limit exceeded$/);
    assert.ok(performance.now() - started < 500);
  });

  it('a pattern RE2 refuses: when written, if a literal; when evaluated, if read from the object', () => {
    const compiled = compilePolicy({ validations: [{ expression: 'object.spec.s.matches("(?=a)")' }] });
    assert.deepEqual(
      compiled.errors.map((e) => `${e.field}: ${e.detail}`),
      ['spec.validations[0].expression: Invalid value: "object.spec.s.matches(\\"(?=a)\\")": program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    );
    const r = run({ validations: [{ expression: 'object.spec.s.matches(object.spec.p)' }] }, { spec: { s: 'ab', p: '(a)\\1' } });
    assert.equal(r.decisions[0].message, "expression 'object.spec.s.matches(object.spec.p)' resulted in error: error parsing regexp: invalid escape sequence: `\\1`");
  });

  it('measures untyped values by their largest part', () => {
    assert.deepEqual(measuredDyn(null), { kind: 'null' });
    assert.deepEqual(measuredDyn({ a: [1, 2, 3], b: 'xy' }), { kind: 'dyn', max: 3 });
  });
});

describe('policy matching', () => {
  const deps = (labels: Record<string, Record<string, string>> = {}): MatchDeps => ({
    namespaceLabels: async (n) => {
      const l = labels[n];
      if (!l) throw Object.assign(new Error('not found'), {});
      return l;
    },
  });
  const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
    operation: 'CREATE',
    object: { metadata: { name: 'web', labels: { app: 'web' } } },
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    subresource: '',
    namespace: 'prod',
    name: 'web',
    user: { username: 'u', groups: [] },
    dryRun: false,
    warnings: [],
    ...over,
  });
  const rule = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'], ...over });

  const cases: { name: string; m: Record<string, unknown> | undefined; a?: Partial<AdmissionAttributes>; want: boolean }[] = [
    { name: 'no matchResources matches everything', m: undefined, want: true },
    { name: 'a rule covering the request', m: { resourceRules: [rule()] }, want: true },
    { name: 'another operation', m: { resourceRules: [rule({ operations: ['UPDATE'] })] }, want: false },
    { name: 'resourceNames list the name', m: { resourceRules: [rule({ resourceNames: ['web'] })] }, want: true },
    { name: 'resourceNames without the name', m: { resourceRules: [rule({ resourceNames: ['db'] })] }, want: false },
    { name: 'exclude rules win', m: { resourceRules: [rule()], excludeResourceRules: [rule()] }, want: false },
    { name: 'object selector on labels', m: { resourceRules: [rule()], objectSelector: { matchLabels: { app: 'web' } } }, want: true },
    { name: 'object selector missing', m: { resourceRules: [rule()], objectSelector: { matchLabels: { app: 'db' } } }, want: false },
    { name: 'namespace selector', m: { resourceRules: [rule()], namespaceSelector: { matchLabels: { env: 'prod' } } }, want: true },
    { name: 'namespace selector missing', m: { resourceRules: [rule()], namespaceSelector: { matchLabels: { env: 'dev' } } }, want: false },
    { name: 'scope Cluster does not cover a namespaced request', m: { resourceRules: [rule({ scope: 'Cluster' })] }, want: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const out = await matchResources(c.m, attrs(c.a), deps({ prod: { env: 'prod' } }));
      assert.equal(out.matches, c.want);
    });
  }

  it('matches as another served version under Equivalent, not under Exact', async () => {
    const d: MatchDeps = {
      ...deps({ prod: {} }),
      equivalents: () => [
        { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } },
        { resource: { group: 'apps', version: 'v1beta2', resource: 'deployments' }, kind: { group: 'apps', version: 'v1beta2', kind: 'Deployment' } },
      ],
    };
    const m = { resourceRules: [rule({ apiVersions: ['v1beta2'] })] };
    const eq = await matchResources({ ...m, matchPolicy: 'Equivalent' }, attrs(), d);
    assert.equal(eq.matches, true);
    assert.equal(eq.kind?.version, 'v1beta2');
    assert.equal((await matchResources({ ...m, matchPolicy: 'Exact' }, attrs(), d)).matches, false);
  });

  it('reports a selector error only when the rules match', async () => {
    const bad = { matchExpressions: [{ key: 'a', operator: 'Bogus', values: ['x'] }] };
    const hit = await matchResources({ resourceRules: [rule()], objectSelector: bad }, attrs(), deps({ prod: {} }));
    assert.equal(hit.matches, false);
    assert.ok(hit.error);
    const miss = await matchResources({ resourceRules: [rule({ operations: ['DELETE'] })], objectSelector: bad }, attrs(), deps({ prod: {} }));
    assert.equal(miss.error, undefined);
  });
});
