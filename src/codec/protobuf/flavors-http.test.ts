// Each flavor's whole server serves its own binary media type name only: the other
// flavor's name is refused as any unknown type is (406 for Accept, 415 for a body), and
// the refusals list exactly the media types served, in kube-apiserver's words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startAuthTestServer, type AuthTestServer } from '../../testing/server.js';

const FLAVORS = [
  { flavor: 'orch', args: [], own: 'application/vnd.orch.protobuf', other: 'application/vnd.kubernetes.protobuf' },
  { flavor: 'kubernetes', args: ['--compat=kubernetes'], own: 'application/vnd.kubernetes.protobuf', other: 'application/vnd.orch.protobuf' },
] as const;

for (const f of FLAVORS) {
  describe(`binary media type names over HTTPS (${f.flavor} flavor)`, () => {
    let s: AuthTestServer;
    before(async () => {
      s = await startAuthTestServer([...f.args]);
    });
    after(async () => s?.stop());

    it('answers its own name', async () => {
      const r = await s.request('GET', '/api/v1/namespaces/default', { ...s.admin, headers: { Accept: f.own } });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], f.own);
    });

    it('refuses the other name in Accept with 406 naming what it serves', async () => {
      const r = await s.request('GET', '/api/v1/namespaces/default', { ...s.admin, headers: { Accept: f.other } });
      assert.equal(r.status, 406);
      assert.equal(r.json.reason, 'NotAcceptable');
      assert.equal(r.json.message, `only the following media types are accepted: application/json, application/yaml, ${f.own}`);
      const watch = await s.request('GET', '/api/v1/namespaces?watch=true', { ...s.admin, headers: { Accept: f.other } });
      assert.equal(watch.status, 406);
      assert.equal(watch.json.message, `only the following media types are accepted: application/json;stream=watch, ${f.own};stream=watch`);
    });

    it('refuses a body of the other name with 415', async () => {
      const r = await s.request('POST', '/api/v1/namespaces', { ...s.admin, headers: { 'Content-Type': f.other } }, 'k8s\u0000');
      assert.equal(r.status, 415);
      assert.equal(r.json.message, `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${f.own}`);
    });
  });
}
