// The authentication group as release 1.27 lays it out (the reference's API surface), in
// discovery and OpenAPI: TokenReview in v1 only; SelfSubjectReview in v1beta1 and v1alpha1
// only, each served when --runtime-config asks and the APISelfSubjectReview gate is on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';

// Release 1.27's rows of the group, `version/resource`: served by default, and all of them.
const LAYOUT = {
  byDefault: ['v1/tokenreviews'],
  all: ['v1/tokenreviews', 'v1alpha1/selfsubjectreviews', 'v1beta1/selfsubjectreviews'],
};

const CASES = [
  { name: 'kubernetes flavor, defaults', args: ['--compat=kubernetes'], group: 'authentication.k8s.io', served: 'byDefault' },
  { name: 'orch flavor, defaults', args: [], group: 'authentication.orch.io', served: 'byDefault' },
  { name: 'kubernetes flavor, beta and alpha asked for', args: ['--compat=kubernetes', '--runtime-config=authentication.k8s.io/v1beta1=true,authentication.k8s.io/v1alpha1=true'], group: 'authentication.k8s.io', served: 'all' },
  {
    name: 'kubernetes flavor, asked for with APISelfSubjectReview off',
    args: ['--compat=kubernetes', '--runtime-config=authentication.k8s.io/v1beta1=true,authentication.k8s.io/v1alpha1=true', '--feature-gates=APISelfSubjectReview=false'],
    group: 'authentication.k8s.io',
    served: 'byDefault',
  },
] as const;

for (const c of CASES) {
  describe(`authentication group layout (${c.name})`, () => {
    let s: AuthTestServer;
    before(async () => {
      s = await startAuthTestServer([...c.args]);
    });
    after(async () => s?.stop());

    it('serves exactly the reference resources, by discovery', async () => {
      const want = LAYOUT[c.served];
      const group = await s.request('GET', `/apis/${c.group}`, s.admin);
      assert.equal(group.status, 200);
      const versions = (group.json.versions as { version: string }[]).map((v) => v.version);
      assert.deepEqual(versions, [...new Set(want.map((k) => k.split('/')[0]!))].sort((a, b) => ['v1', 'v1beta1', 'v1alpha1'].indexOf(a) - ['v1', 'v1beta1', 'v1alpha1'].indexOf(b)));
      assert.equal((group.json.preferredVersion as { version: string }).version, 'v1');
      const got: string[] = [];
      for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
        const list = await s.request('GET', `/apis/${c.group}/${v}`, s.admin);
        if (list.status === 404) continue;
        assert.equal(list.status, 200, list.text);
        for (const r of list.json.resources as { name: string; verbs: string[] }[]) {
          got.push(`${v}/${r.name}`);
          assert.deepEqual(r.verbs, ['create']);
        }
      }
      assert.deepEqual(got.sort(), want);
    });

    it('answers only where it serves', async () => {
      const want = new Set(LAYOUT[c.served]);
      for (const [v, resource, kind] of [
        ['v1', 'tokenreviews', 'TokenReview'],
        ['v1beta1', 'tokenreviews', 'TokenReview'],
        ['v1', 'selfsubjectreviews', 'SelfSubjectReview'],
        ['v1beta1', 'selfsubjectreviews', 'SelfSubjectReview'],
        ['v1alpha1', 'selfsubjectreviews', 'SelfSubjectReview'],
      ] as const) {
        const r = await s.request('POST', `/apis/${c.group}/${v}/${resource}`, s.admin, { apiVersion: `${c.group}/${v}`, kind, spec: resource === 'tokenreviews' ? { token: 'x' } : undefined });
        assert.equal(r.status, want.has(`${v}/${resource}`) ? 201 : 404, `${v}/${resource}: ${r.text}`);
      }
    });

    it('describes the same in OpenAPI v3', async () => {
      const want = LAYOUT[c.served];
      const index = await s.request('GET', '/openapi/v3', s.admin);
      assert.equal(index.status, 200);
      const paths = Object.keys(index.json.paths as object).filter((p) => p.startsWith(`apis/${c.group}/`));
      assert.deepEqual(paths.sort(), [...new Set(want.map((k) => `apis/${c.group}/${k.split('/')[0]!}`))].sort());
      for (const p of paths) {
        const doc = await s.request('GET', `/openapi/v3/${p}`, s.admin);
        const version = p.split('/').pop()!;
        const resources = Object.keys(doc.json.paths as object).map((path) => path.split('/').pop()!);
        assert.deepEqual([...new Set(resources)].sort(), want.filter((k) => k.startsWith(`${version}/`)).map((k) => k.split('/')[1]!));
      }
    });
  });
}
