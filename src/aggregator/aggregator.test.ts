// The aggregation layer through the whole server: an extension API server written here
// (HTTPS, trusting only the front-proxy CA the server publishes, reading the X-Remote-*
// headers) serves `flunders` in wardle.example.com/v1alpha1 behind an APIService.
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderKubeconfig } from '../client/kubeconfig.js';
import { startAuthTestServer, type AuthTestServer } from '../testing/server.js';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { eventually } from '../testing/wait.js';
import { externalIPv4 } from '../testing/net.js';

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
const GV = 'wardle.example.com/v1alpha1';
/** Endpoints may not name loopback addresses (as in Kubernetes): the extension server listens on this machine's other address. */
const WARDLE_IP = externalIPv4();
const BASE = `/apis/${GV}`;

interface Seen {
  user: string | undefined;
  groups: string[];
  authorization: string | undefined;
  impersonate: string | undefined;
  path: string;
  cn: string | undefined;
}

type Mode = 'ok' | 'hang' | 'garbage';

/** The extension API server: verifies the caller's client certificate against `trustCA`. */
async function startWardle(serving: TestCert, trustCA: string, allowed: string[]) {
  const seen: Seen[] = [];
  const flunders = new Map<string, Record<string, unknown>>();
  const state = { mode: 'ok' as Mode };
  const handle = (req: IncomingMessage, body: string, res: ServerResponse): void => {
    const sock = req.socket as TLSSocket;
    const cn = sock.authorized ? (sock.getPeerCertificate().subject?.CN as string | undefined) : undefined;
    if (!cn || (allowed.length > 0 && !allowed.includes(cn))) {
      res.writeHead(401).end('no front-proxy certificate');
      return;
    }
    const header = (n: string): string | undefined => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : undefined);
    const groups = req.headersDistinct['x-remote-group'] ?? [];
    seen.push({ user: header('x-remote-user'), groups, authorization: header('authorization'), impersonate: header('impersonate-user'), path: req.url ?? '', cn });
    if (state.mode === 'hang') return;
    if (state.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"kind": not json at all');
      return;
    }
    const send = (code: number, o: unknown): void => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(o));
    };
    const url = new URL(req.url ?? '/', 'https://x');
    if (url.pathname === `/openapi/v3${BASE}`) {
      send(200, { openapi: '3.0.0', info: { title: 'wardle', version: 'v0' }, paths: { [`${BASE}/namespaces/{namespace}/flunders`]: {} } });
      return;
    }
    if (url.pathname === BASE) {
      send(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: GV,
        resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['fl'] }],
      });
      return;
    }
    const m = /^\/apis\/wardle\.example\.com\/v1alpha1\/namespaces\/([^/]+)\/flunders(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not here' });
    const [, ns, name] = m;
    if (req.method === 'POST') {
      const o = JSON.parse(body) as Record<string, unknown>;
      const meta = o.metadata as Record<string, unknown>;
      const stored = { ...o, metadata: { ...meta, namespace: ns, resourceVersion: '1', creationTimestamp: '2024-01-01T00:00:00Z', uid: 'u1' } };
      flunders.set(`${ns}/${String(meta.name)}`, stored);
      return send(201, stored);
    }
    if (name) {
      const o = flunders.get(`${ns}/${name}`);
      return o ? send(200, o) : send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `flunders "${name}" not found` });
    }
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (const o of flunders.values()) res.write(JSON.stringify({ type: 'ADDED', object: o }) + '\n');
      return; // stays open
    }
    send(200, { kind: 'FlunderList', apiVersion: GV, metadata: { resourceVersion: '1' }, items: [...flunders.values()].filter((o) => (o.metadata as { namespace: string }).namespace === ns) });
  };
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: trustCA, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((r) => server.listen(0, WARDLE_IP, r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    state,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('aggregated API server behind an APIService (kubernetes flavor)', { skip: WARDLE_IP ? false : 'no non-loopback address on this machine' }, () => {
  let s: AuthTestServer;
  let ca: TestCert;
  let wardle: Awaited<ReturnType<typeof startWardle>>;
  let cm: Record<string, string>;

  const apiService = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec: { group: 'wardle.example.com', version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'wardle', name: 'api' }, caBundle: Buffer.from(ca.certPem).toString('base64'), ...extra },
  });
  const condition = async (name: string) => {
    const r = await s.request('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, s.admin);
    return ((r.json.status as { conditions?: Record<string, string>[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Available');
  };

  before(async () => {
    s = await startAuthTestServer(['--compat=kubernetes']);
    const r = await s.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', s.admin);
    assert.equal(r.status, 200, r.text);
    cm = r.json.data as Record<string, string>;
    ca = await createCA('wardle-ca');
    const serving = await issueCert(ca, 'api.wardle.svc', { usage: 'server', dnsNames: ['api.wardle.svc'] });
    wardle = await startWardle(serving, cm['requestheader-client-ca-file']!, JSON.parse(cm['requestheader-allowed-names']!) as string[]);
    await s.request('POST', '/api/v1/namespaces', s.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'wardle' } });
    const svc = await s.request('POST', '/api/v1/namespaces/wardle/services', s.admin, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api' },
      spec: { ports: [{ port: 443, targetPort: 8443 }] },
    });
    assert.equal(svc.status, 201, svc.text);
    const ep = await s.request('POST', '/api/v1/namespaces/wardle/endpoints', s.admin, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'api' },
      subsets: [{ addresses: [{ ip: WARDLE_IP }], ports: [{ port: wardle.port }] }],
    });
    assert.equal(ep.status, 201, ep.text);
  });
  after(async () => {
    await wardle?.close();
    await s?.stop();
  });

  it('publishes the front-proxy trust in extension-apiserver-authentication', () => {
    assert.match(cm['client-ca-file']!, /BEGIN CERTIFICATE/);
    assert.match(cm['requestheader-client-ca-file']!, /BEGIN CERTIFICATE/);
    assert.notEqual(cm['requestheader-client-ca-file'], cm['client-ca-file']);
    assert.deepEqual(JSON.parse(cm['requestheader-allowed-names']!), ['front-proxy-client']);
    assert.deepEqual(JSON.parse(cm['requestheader-username-headers']!), ['X-Remote-User']);
    assert.deepEqual(JSON.parse(cm['requestheader-group-headers']!), ['X-Remote-Group']);
    assert.deepEqual(JSON.parse(cm['requestheader-extra-headers-prefix']!), ['X-Remote-Extra-']);
  });

  it('autoregisters local APIServices for the built-in group-versions, Available with reason Local', async () => {
    const apps = await eventually(async () => {
      const r = await s.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps', s.admin);
      return r.status === 200 && (r.json.status as { conditions?: unknown[] }).conditions ? r.json : undefined;
    }, 'v1.apps available');
    assert.deepEqual(apps.spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    assert.equal((apps.metadata as { labels: Record<string, string> }).labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    assert.deepEqual(await condition('v1.apps').then((c) => c && { status: c.status, reason: c.reason, message: c.message }), { status: 'True', reason: 'Local', message: 'Local APIServices are always available' });
    const core = await s.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.', s.admin);
    assert.equal(core.status, 200, core.text);
    // A deleted automanaged APIService comes back.
    assert.equal((await s.request('DELETE', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch', s.admin)).status, 200);
    await eventually(async () => (await s.request('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.batch', s.admin)).status === 200, 'v1.batch back');
  });

  it('rejects APIServices as kube-aggregator does', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...apiService('v1.wrong') }, 'name', /metadata.name: Invalid value: "v1.wrong": must be `spec.version\+"."\+spec.group`: "v1alpha1.wardle.example.com"/],
      [apiService('v1alpha1.wardle.example.com', { groupPriorityMinimum: 20001 }), 'priority', /spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000/],
      [apiService('v1alpha1.wardle.example.com', { versionPriority: 0 }), 'version priority', /spec.versionPriority: Invalid value: 0: must be positive and less than 1000/],
      [apiService('v1alpha1.wardle.example.com', { insecureSkipTLSVerify: true }), 'both', /spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present/],
      [apiService('v1alpha1.wardle.example.com', { service: { namespace: '', name: 'api' } }), 'namespace', /spec.service.namespace: Required value/],
      [apiService('v1alpha1.wardle.example.com', { service: undefined }), 'local caBundle', /spec.caBundle: Invalid value: "\d+ bytes": local APIServices may not have a caBundle/],
    ];
    for (const [body, what, message] of cases) {
      const r = await s.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', s.admin, body);
      assert.equal(r.status, 422, `${what}: ${r.text}`);
      assert.match(String(r.json.message), message, what);
    }
  });

  it('an APIService whose service is missing is unavailable (ServiceNotFound) and answers 503', async () => {
    const r = await s.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', s.admin, {
      ...apiService('v1.nowhere.example.com'),
      spec: { group: 'nowhere.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, service: { namespace: 'wardle', name: 'missing' }, insecureSkipTLSVerify: true },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal((r.json.spec as { service: { port: number } }).service.port, 443);
    const c = await eventually(async () => (await condition('v1.nowhere.example.com'))?.reason === 'ServiceNotFound' && condition('v1.nowhere.example.com'), 'ServiceNotFound');
    assert.equal(c?.message, 'service/missing in "wardle" is not present');
    const get = await s.request('GET', '/apis/nowhere.example.com/v1/namespaces/default/things', s.admin);
    assert.equal(get.status, 503);
    assert.equal(get.json.message, 'service unavailable');
  });

  it('becomes Available (Passed) and serves the remote through this server with the caller identity', async () => {
    const r = await s.request('POST', '/apis/apiregistration.k8s.io/v1/apiservices', s.admin, apiService('v1alpha1.wardle.example.com'));
    assert.equal(r.status, 201, r.text);
    const c = await eventually(async () => (await condition('v1alpha1.wardle.example.com'))?.status === 'True' && condition('v1alpha1.wardle.example.com'), 'Available');
    assert.equal(c?.reason, 'Passed');
    assert.equal(c?.message, 'all checks passed');
    // The discovery check used the front-proxy certificate.
    assert.ok(wardle.seen.some((x) => x.path === BASE && x.cn === 'front-proxy-client'));

    wardle.seen.length = 0;
    const created = await s.request('POST', `${BASE}/namespaces/default/flunders`, { ...s.admin, headers: { 'X-Remote-User': 'forged', 'X-Remote-Extra-Scopes': 'forged' } }, { apiVersion: GV, kind: 'Flunder', metadata: { name: 'one' } });
    assert.equal(created.status, 201, created.text);
    const got = await s.request('GET', `${BASE}/namespaces/default/flunders/one`, s.admin);
    assert.equal(got.status, 200, got.text);
    assert.equal((got.json.metadata as { name: string }).name, 'one');
    const post = wardle.seen.find((x) => x.path.endsWith('/flunders'))!;
    assert.equal(post.user, 'test-admin');
    assert.ok(post.groups.includes('system:masters'), String(post.groups));
    assert.equal(post.authorization, undefined);
  });

  it('discovery lists the remote group and its resources, legacy and aggregated', async () => {
    const groups = await s.request('GET', '/apis', s.admin);
    const wardleGroup = (groups.json.groups as { name: string; preferredVersion: { version: string } }[]).find((g) => g.name === 'wardle.example.com');
    assert.equal(wardleGroup?.preferredVersion.version, 'v1alpha1');
    assert.equal((groups.json.groups as { name: string }[])[0]!.name, 'apiregistration.k8s.io');
    const group = await s.request('GET', '/apis/wardle.example.com', s.admin);
    assert.equal(group.status, 200);
    const list = await s.request('GET', BASE, s.admin);
    assert.equal((list.json.resources as { name: string }[])[0]!.name, 'flunders');
    const agg = await s.request('GET', '/apis', { ...s.admin, headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
    const item = (agg.json.items as { metadata: { name: string }; versions: { version: string; resources: { resource: string; scope: string; shortNames: string[] }[] }[] }[]).find((i) => i.metadata.name === 'wardle.example.com');
    assert.deepEqual(item?.versions[0]!.resources.map((x) => [x.resource, x.scope, x.shortNames]), [['flunders', 'Namespaced', ['fl']]]);
  });

  it('/openapi/v3 lists the remote group-version, served from here', async () => {
    const idx = await eventually(async () => {
      const r = await s.request('GET', '/openapi/v3', s.admin);
      return (r.json.paths as Record<string, { serverRelativeURL: string }>)[`apis/${GV}`];
    }, 'the remote in the v3 index');
    assert.match(idx.serverRelativeURL, /^\/openapi\/v3\/apis\/wardle\.example\.com\/v1alpha1\?hash=[0-9A-F]{128}$/);
    const doc = await s.request('GET', idx.serverRelativeURL, s.admin);
    assert.equal(doc.status, 200);
    assert.equal((doc.json.info as { title: string }).title, 'wardle');
  });

  it('RBAC denies a user without rights before anything is proxied', async () => {
    const nobody = await s.user('nobody');
    wardle.seen.length = 0;
    const r = await s.request('GET', `${BASE}/namespaces/default/flunders`, nobody);
    assert.equal(r.status, 403, r.text);
    assert.match(String(r.json.message), /flunders\.wardle\.example\.com is forbidden: User "nobody" cannot list resource "flunders" in API group "wardle\.example\.com"/);
    assert.equal(wardle.seen.length, 0);
  });

  it('refuses a dot-segment path and streams a watch', async () => {
    const dots = await s.request('GET', `${BASE}/namespaces/default/flunders/%2e%2e/x`, s.admin);
    assert.ok(dots.status === 400 || dots.status === 404, `${dots.status} ${dots.text}`);
    // A watch: the first event arrives while the answer stays open.
    const { request } = await import('node:https');
    const first = await new Promise<string>((resolve, reject) => {
      const req = request(new URL(`${BASE}/namespaces/default/flunders?watch=true`, s.url), { ca: s.serverCA, cert: s.admin.cert!.certPem, key: s.admin.cert!.keyPem, agent: false }, (res) => {
        res.once('data', (c: Buffer) => {
          resolve(c.toString('utf8'));
          req.destroy();
        });
      });
      req.on('error', reject);
      req.end();
    });
    assert.match(first, /"type":"ADDED"/);
  });

  it('forwards exactly the path it authorized: backslashes and encoded slashes are not separators upstream', async () => {
    const { request } = await import('node:https');
    const raw = (path: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const u = new URL(s.url);
        const req = request({ host: u.hostname, port: u.port, path, ca: s.serverCA, cert: s.admin.cert!.certPem, key: s.admin.cert!.keyPem, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
    const attacks = [
      `${BASE}/namespaces/team-a/flunders/..\\..\\..\\namespaces\\team-b\\flunders\\secret`,
      `${BASE}/namespaces/team-a/flunders/x%2F..%2F..%2Fnamespaces%2Fteam-b%2Fflunders%2Fsecret`,
      `${BASE}/namespaces/team-a/flunders/x%5C..%5C..%5Cteam-b`,
      `${BASE}/namespaces/team-a/flunders/..%5cteam-b`,
    ];
    for (const path of attacks) {
      wardle.seen.length = 0;
      const status = await raw(path);
      if (wardle.seen.length === 0) {
        assert.ok(status === 400 || status === 404, `${path}: ${status}`);
        continue;
      }
      const forwarded = wardle.seen[0]!.path;
      // The segments upstream are the segments that were authorized: team-a, one name after flunders.
      const segments = forwarded.split('?')[0]!.split('/').map((x) => decodeURIComponent(x));
      const authorized = path.split('/').map((x) => decodeURIComponent(x));
      assert.deepEqual(segments, authorized, `${path} reached ${forwarded}`);
      assert.equal(new URL(forwarded, 'https://x').pathname.split('/')[5], 'team-a', `${path} reached ${forwarded}`);
    }
  });

  it('kubectl gets flunders and lists them in api-resources', { skip: KUBECTL ? false : 'kubectl is not installed' }, async () => {
    const kubeconfig = join(s.dataDir, 'test-admin.kubeconfig');
    writeFileSync(kubeconfig, renderKubeconfig({ server: s.url, caPem: s.serverCA, clientCertPem: s.admin.cert!.certPem, clientKeyPem: s.admin.cert!.keyPem, user: 'test-admin', cluster: 'kubernetes' }));
    const kubectl = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(KUBECTL!, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(s.dataDir, 'kcache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: s.dataDir } }, (err, stdout, stderr) =>
          err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
        ),
      );
    assert.match(await kubectl('get', 'flunders', '-n', 'default'), /one/);
    assert.match(await kubectl('api-resources'), /flunders\s+fl\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder/);
  });

  it('a hanging remote is bounded by the request timeout; garbage is an error, other groups unaffected', async () => {
    wardle.state.mode = 'hang';
    const started = Date.now();
    const r = await s.request('GET', `${BASE}/namespaces/default/flunders?timeout=1s`, s.admin);
    assert.equal(r.status, 504, r.text);
    assert.ok(Date.now() - started < 10_000);
    wardle.state.mode = 'garbage';
    const g = await s.request('GET', `${BASE}/namespaces/default/flunders/one`, s.admin);
    assert.equal(g.status, 200);
    assert.equal(g.json.kind, undefined);
    wardle.state.mode = 'ok';
    assert.equal((await s.request('GET', '/api/v1/namespaces', s.admin)).status, 200);
  });

  it('a remote that is down: 503 for its group only, and Available=False FailedDiscoveryCheck', async () => {
    await wardle.close();
    const r = await s.request('GET', `${BASE}/namespaces/default/flunders`, s.admin);
    assert.equal(r.status, 503, r.text);
    assert.equal((await s.request('GET', '/apis/apps/v1/namespaces/default/deployments', s.admin)).status, 200);
    const c = await eventually(async () => (await condition('v1alpha1.wardle.example.com'))?.reason === 'FailedDiscoveryCheck' && condition('v1alpha1.wardle.example.com'), 'FailedDiscoveryCheck', 15_000);
    assert.match(String(c?.message), new RegExp(`^failing or missing response from https://${WARDLE_IP!.replace(/\./g, '\\.')}:\\d+/apis/wardle\\.example\\.com/v1alpha1: `));
    assert.equal(c?.status, 'False');
    const groups = await s.request('GET', '/apis', s.admin);
    assert.ok(!(groups.json.groups as { name: string }[]).some((g) => g.name === 'wardle.example.com'));
    const again = await s.request('GET', `${BASE}/namespaces/default/flunders`, s.admin);
    assert.equal(again.status, 503);
    assert.equal(again.json.message, 'service unavailable');
  });
});
