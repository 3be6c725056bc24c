// The connect subresources end to end: the whole server over HTTPS, a fake node agent
// (HTTPS, in the test) behind a Node object, kubectl logs and get --raw, an exec upgrade
// through to the agent, the address rules and RBAC.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { renderKubeconfig } from '../../client/kubeconfig.js';
import { createCA, issueCert, type TestCert } from '../../testing/pki.js';
import { externalIPv4 } from '../../testing/net.js';
import { startAuthTestServer, type AuthTestServer, type Identity } from '../../testing/server.js';

const KUBECTL = (process.env['PATH'] ?? '')
  .split(delimiter)
  .filter(Boolean)
  .map((d) => join(d, 'kubectl'))
  .find((p) => existsSync(p));

/** A non-loopback IPv4 address of this machine: a target the proxy's address rule allows. */
const EXTERNAL_IP = externalIPv4();

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  clientCert: boolean;
}

const listen = (server: Server, host: string): Promise<number> =>
  new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));

/** Sends a raw HTTP/1.1 upgrade request over TLS and collects what comes back until `until` matches. */
function rawUpgrade(url: string, path: string, who: Identity, ca: string, until: (text: string) => boolean, send?: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = tlsConnect({ host: u.hostname, port: Number(u.port), ca, cert: who.cert?.certPem, key: who.cert?.keyPem, ALPNProtocols: ['http/1.1'] }, () => {
      sock.write(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nAuthorization: Bearer secret-token\r\n\r\n`);
    });
    let text = '';
    let sent = false;
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`no complete answer: ${JSON.stringify(text)}`));
    }, 10_000);
    sock.on('data', (d: Buffer) => {
      text += d.toString('utf8');
      if (send && !sent && text.includes('\r\n\r\n') && text.startsWith('HTTP/1.1 101')) {
        sent = true;
        sock.write(send);
      }
      if (until(text)) {
        clearTimeout(timer);
        sock.destroy();
        resolve(text);
      }
    });
    sock.on('end', () => {
      clearTimeout(timer);
      resolve(text);
    });
    sock.on('error', reject);
  });
}

describe('connect subresources', () => {
  let s: AuthTestServer;
  let ca: TestCert;
  let kubeletPort = 0;
  let deadPort = 0;
  let hangPort = 0;
  let webPort = 0;
  const seen: Seen[] = [];
  const servers: { close(): unknown }[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'orch-connect-'));
  let kubeconfig = '';

  const kubectl = (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(KUBECTL!, [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dir, 'cache')}`, ...args], { timeout: 30_000, env: { ...process.env, HOME: dir } }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });

  const ok = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const r = await s.request(method, path, s.admin, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r.json;
  };

  const node = async (name: string, address: string, port: number): Promise<void> => {
    await ok('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
    // The node lifecycle controller may write the new node meanwhile: retry on a conflict, as a kubelet does.
    for (;;) {
      const n = await ok('GET', `/api/v1/nodes/${name}`);
      n.status = { addresses: [{ type: 'InternalIP', address }], daemonEndpoints: { kubeletEndpoint: { Port: port } } };
      const r = await s.request('PUT', `/api/v1/nodes/${name}/status`, s.admin, n);
      if (r.status === 409) continue;
      assert.equal(r.status, 200, r.text);
      break;
    }
  };

  const pod = async (name: string, nodeName: string | undefined, podIP?: string, containers = ['main']): Promise<void> => {
    await ok('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { app: name } },
      spec: { ...(nodeName ? { nodeName } : {}), containers: containers.map((c) => ({ name: c, image: 'busybox', ports: [{ containerPort: webPort || 80, name: 'http' }] })) },
    });
    if (podIP) {
      const p = await ok('GET', `/api/v1/namespaces/default/pods/${name}`);
      p.status = { phase: 'Running', podIP, podIPs: [{ ip: podIP }] };
      await ok('PUT', `/api/v1/namespaces/default/pods/${name}/status`, p);
    }
  };

  before(async () => {
    ca = await createCA('fake-kubelet-ca');
    const serving = await issueCert(ca, 'fake-kubelet', { usage: 'server', ips: ['127.0.0.1'] });
    // The fake node agent: logs, and upgrades answered with 101 and an echo.
    const kubelet = createHttpsServer({ cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCert: Boolean((req.socket as unknown as { getPeerCertificate(): { raw?: Buffer } }).getPeerCertificate().raw) });
      if ((req.url ?? '').startsWith('/containerLogs/default/missing-log/')) {
        res.writeHead(404).end('no such container');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`log line 1\nlog line 2 for ${req.url}\n`);
    });
    kubelet.on('upgrade', (req: IncomingMessage, socket: Socket) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCert: true });
      socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
      socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString('utf8')}`));
    });
    kubeletPort = await listen(kubelet as unknown as Server, '127.0.0.1');
    servers.push(kubelet);
    // A port nothing listens on, and an agent that never answers.
    const dead = createHttpServer();
    deadPort = await listen(dead, '127.0.0.1');
    await new Promise((r) => dead.close(r));
    const hang = createHttpsServer({ cert: serving.certPem, key: serving.keyPem }, () => {});
    hangPort = await listen(hang as unknown as Server, '127.0.0.1');
    servers.push(hang);
    // A plain HTTP backend for pod and service proxying.
    const web = createHttpServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCert: false });
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`web ${req.method} ${req.url} ${body}`));
    });
    webPort = await listen(web, '0.0.0.0');
    servers.push(web);

    s = await startAuthTestServer(['--compat=kubernetes', '--request-timeout=3s']);
    kubeconfig = join(dir, 'admin.kubeconfig');
    writeFileSync(kubeconfig, renderKubeconfig({ server: s.url, caPem: s.serverCA, clientCertPem: s.admin.cert!.certPem, clientKeyPem: s.admin.cert!.keyPem, user: 'admin', cluster: 'kubernetes' }));
    await node('n1', '127.0.0.1', kubeletPort);
    await node('dead', '127.0.0.1', deadPort);
    await node('hang', '127.0.0.1', hangPort);
    await pod('p1', 'n1');
    await pod('two', 'n1', undefined, ['a', 'b']);
    await pod('orphan', undefined);
    await pod('on-dead', 'dead');
    await pod('on-hang', 'hang');
    await pod('loop', 'n1', '127.0.0.1');
    await pod('metadata', 'n1', '169.254.169.254');
    if (EXTERNAL_IP) await pod('web', 'n1', EXTERNAL_IP);
  });

  after(async () => {
    await s?.stop();
    for (const x of servers) x.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pod logs come from the node agent, with the kubelet client certificate and the options passed on', async () => {
    const r = await s.request('GET', '/api/v1/namespaces/default/pods/p1/log?tailLines=5&timestamps=true', s.admin);
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /log line 2 for \/containerLogs\/default\/p1\/main\?tailLines=5&timestamps=true/);
    assert.equal(seen.at(-1)?.clientCert, true);
  });

  it('kubectl logs prints the agent log', { skip: KUBECTL ? false : 'kubectl is not installed' }, async () => {
    const r = await kubectl('logs', 'p1', '--tail=3');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /log line 1/);
  });

  it('log options are validated as Kubernetes does', async () => {
    const cases: [string, number, RegExp][] = [
      ['tailLines=-1', 422, /PodLogOptions "p1" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/],
      ['limitBytes=0', 422, /limitBytes: Invalid value: 0: must be greater than 0/],
      ['sinceSeconds=0', 422, /sinceSeconds: Invalid value: 0: must be greater than 0/],
      ['sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z', 422, /at most one of `sinceTime` or `sinceSeconds` may be specified/],
      ['tailLines=abc', 400, /strconv.ParseInt: parsing "abc": invalid syntax/],
      ['container=nope', 400, /container nope is not valid for pod p1/],
    ];
    for (const [q, code, message] of cases) {
      const r = await s.request('GET', `/api/v1/namespaces/default/pods/p1/log?${q}`, s.admin);
      assert.equal(r.status, code, `${q}: ${r.text}`);
      assert.match(String(r.json.message), message, q);
    }
    const two = await s.request('GET', '/api/v1/namespaces/default/pods/two/log', s.admin);
    assert.equal(two.status, 400);
    assert.equal(two.json.message, 'a container name must be specified for pod two, choose one of: [a b]');
  });

  it('a pod without a node has an empty log; exec on it is 400 without a host', async () => {
    const log = await s.request('GET', '/api/v1/namespaces/default/pods/orphan/log', s.admin);
    assert.equal(log.status, 200);
    assert.equal(log.text, '');
    const exec = await rawUpgrade(s.url, '/api/v1/namespaces/default/pods/orphan/exec?command=ls&stdout=true', s.admin, s.serverCA, (t) => t.includes('}'));
    assert.match(exec, /^HTTP\/1.1 400/);
    assert.match(exec, /pod orphan does not have a host assigned/);
  });

  it('an unreachable node agent is named in the error, never a 404', async () => {
    const log = await s.request('GET', '/api/v1/namespaces/default/pods/on-dead/log', s.admin);
    assert.equal(log.status, 500, log.text);
    assert.equal(log.json.message, `Get "https://127.0.0.1:${deadPort}/containerLogs/default/on-dead/main": dial tcp 127.0.0.1:${deadPort}: connect: connection refused`);
    const exec = await rawUpgrade(s.url, '/api/v1/namespaces/default/pods/on-dead/exec?command=ls&stdout=true', s.admin, s.serverCA, (t) => t.includes('}'));
    assert.match(exec, /^HTTP\/1.1 500/);
    assert.match(exec, new RegExp(`error dialing backend: dial tcp 127.0.0.1:${deadPort}: connect: connection refused`));
  });

  it("the agent's error answer becomes kube's generic Status", async () => {
    await pod('missing-log', 'n1');
    const r = await s.request('GET', '/api/v1/namespaces/default/pods/missing-log/log', s.admin);
    assert.equal(r.status, 404);
    assert.equal(r.json.message, 'the server could not find the requested resource ( pods/log missing-log)');
  });

  it('a hanging node agent is bounded by the request timeout', async () => {
    const started = Date.now();
    const r = await s.request('GET', '/api/v1/namespaces/default/pods/on-hang/log', s.admin);
    assert.equal(r.status, 500, r.text);
    assert.match(String(r.json.message), /timeout awaiting response headers/);
    assert.ok(Date.now() - started < 10_000);
  });

  it('exec upgrades through the chain to the agent and the streams are joined', async () => {
    const text = await rawUpgrade(s.url, '/api/v1/namespaces/default/pods/p1/exec?command=echo&command=hi&stdin=true&stdout=true', s.admin, s.serverCA, (t) => t.includes('echo:ping'), 'ping');
    assert.match(text, /^HTTP\/1.1 101/);
    const upgrade = seen.filter((x) => x.url.startsWith('/exec/')).at(-1);
    assert.equal(upgrade?.url, '/exec/default/p1/main?command=echo&command=hi&error=1&input=1&output=1');
    // The client's credentials end at the API server.
    assert.equal(upgrade?.headers.authorization, undefined);
  });

  it('exec without an upgrade is 400 Upgrade request required; an exec by a stranger is 403', async () => {
    const plain = await s.request('POST', '/api/v1/namespaces/default/pods/p1/exec?command=ls', s.admin);
    assert.equal(plain.status, 400);
    assert.equal(plain.json.message, 'Upgrade request required');
    const stranger = await s.user('stranger');
    const denied = await rawUpgrade(s.url, '/api/v1/namespaces/default/pods/p1/exec?command=ls', stranger, s.serverCA, (t) => t.includes('}'));
    assert.match(denied, /^HTTP\/1.1 403/);
    assert.match(denied, /cannot get resource \\"pods\/exec\\"|cannot get resource "pods\/exec"/);
  });

  it('RBAC: get on pods does not grant pods/proxy, pods/log or pods/exec', async () => {
    const rbac = 'rbac.authorization.k8s.io';
    await ok('POST', `/apis/${rbac}/v1/namespaces/default/roles`, { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'create'] }] });
    await ok('POST', `/apis/${rbac}/v1/namespaces/default/rolebindings`, {
      apiVersion: `${rbac}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'reader' },
      roleRef: { apiGroup: rbac, kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'User', apiGroup: rbac, name: 'reader' }],
    });
    const reader = await s.user('reader');
    let get = await s.request('GET', '/api/v1/namespaces/default/pods/p1', reader);
    for (let i = 0; i < 50 && get.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      get = await s.request('GET', '/api/v1/namespaces/default/pods/p1', reader);
    }
    assert.equal(get.status, 200);
    for (const [method, path, verb, sub] of [
      ['GET', '/api/v1/namespaces/default/pods/p1/proxy/', 'get', 'pods/proxy'],
      ['GET', '/api/v1/namespaces/default/pods/p1/log', 'get', 'pods/log'],
      ['POST', '/api/v1/namespaces/default/pods/p1/exec?command=ls', 'create', 'pods/exec'],
    ] as const) {
      const r = await s.request(method, path, reader);
      assert.equal(r.status, 403, `${path}: ${r.text}`);
      assert.match(String(r.json.message), new RegExp(`cannot ${verb} resource "${sub.split('/')[0]}/${sub.split('/')[1]}"`));
    }
  });

  it('pod and node proxying refuse loopback and link-local targets', async () => {
    for (const path of ['/api/v1/namespaces/default/pods/loop/proxy/', '/api/v1/namespaces/default/pods/metadata:80/proxy/latest/meta-data', '/api/v1/nodes/n1/proxy/pods', '/api/v1/namespaces/default/pods/orphan/proxy/']) {
      const r = await s.request('GET', path, s.admin);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.equal(r.json.message, 'address not allowed');
    }
    const bad = await s.request('GET', '/api/v1/namespaces/default/pods/ftp:p1:21/proxy/', s.admin);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'invalid pod request "ftp:p1:21"');
  });

  it('a proxied id cannot smuggle another host, userinfo or path into the target', async () => {
    const before = seen.length;
    for (const id of ['p1:80@127.0.0.1', 'loop:80@127.0.0.1', 'p1:80#@127.0.0.1', 'p1:80%40127.0.0.1', 'p1:80/..', 'p1@127.0.0.1', 'p1:65536', 'p1:-1', 'p1:http@x', 'https:p1:80@127.0.0.1']) {
      for (const kind of ['pods', 'services']) {
        const path = `/api/v1/namespaces/default/${kind}/${encodeURIComponent(id)}/proxy/`;
        const r = await s.request('GET', path, s.admin);
        assert.equal(r.status, 400, `${path}: ${r.status} ${r.text}`);
        assert.match(String(r.json.message), new RegExp(`^(invalid ${kind === 'pods' ? 'pod' : 'service'} request |Name parameter invalid: )`));
      }
      const r = await s.request('GET', `/api/v1/nodes/${encodeURIComponent(id.replace(/^p1|^loop/, 'n1'))}/proxy/`, s.admin);
      assert.equal(r.status, 400, `node ${id}: ${r.text}`);
    }
    assert.equal(seen.length, before, 'nothing was dialled');
  });

  it('the old /api/v1/proxy/ paths are not served', async () => {
    const r = await s.request('GET', '/api/v1/proxy/namespaces/default/pods/p1', s.admin);
    assert.equal(r.status, 404);
  });

  it('pods proxy: methods, body and query pass through; .. cannot climb; the root redirects', { skip: EXTERNAL_IP ? false : 'no non-loopback address' }, async () => {
    const post = await s.request('POST', `/api/v1/namespaces/default/pods/web:${webPort}/proxy/a/b?x=1&y=%2F`, s.admin, 'hello');
    assert.equal(post.status, 200, post.text);
    assert.equal(post.text, 'web POST /a/b?x=1&y=%2F hello');
    assert.equal(seen.at(-1)?.headers['x-forwarded-uri'], `/api/v1/namespaces/default/pods/web:${webPort}/proxy/a/b`);
    assert.equal(seen.at(-1)?.headers.authorization, undefined);
    // Sent as written (a URL object would resolve the dots on the client).
    const climb = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const u = new URL(s.url);
      const req = httpsRequest(
        { host: u.hostname, port: u.port, path: '/api/v1/namespaces/default/pods/web/proxy/a/../../../secret/', ca: s.serverCA, cert: s.admin.cert!.certPem, key: s.admin.cert!.keyPem, agent: false },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(climb.status, 200, climb.text);
    assert.equal(climb.text, 'web GET /secret/ ');
    const root = await s.request('GET', `/api/v1/namespaces/default/pods/web/proxy`, s.admin);
    assert.equal(root.status, 301);
    assert.equal(root.headers.location, '/api/v1/namespaces/default/pods/web/proxy/');
  });

  it('services proxy resolves named ports through Endpoints, and kubectl get --raw reaches it', { skip: EXTERNAL_IP ? false : 'no non-loopback address' }, async () => {
    // No selector: the Endpoints below are the user's, which the endpoint controller leaves alone.
    await ok('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80, targetPort: webPort }] } });
    await ok('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'empty' }, spec: { ports: [{ name: 'http', port: 80 }] } });
    // Written by hand; an address that is no pod's IP is skipped.
    const eps = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's' }, subsets: [{ addresses: [{ ip: EXTERNAL_IP, targetRef: { kind: 'Pod', namespace: 'default', name: 'web' } }], ports: [{ name: 'http', port: webPort }] }] };
    const existing = await s.request('GET', '/api/v1/namespaces/default/endpoints/s', s.admin);
    if (existing.status === 200) await ok('PUT', '/api/v1/namespaces/default/endpoints/s', { ...eps, metadata: { name: 's', resourceVersion: (existing.json.metadata as { resourceVersion: string }).resourceVersion } });
    else await ok('POST', '/api/v1/namespaces/default/endpoints', eps);
    for (const id of ['s:http', 's:80']) {
      const r = await s.request('GET', `/api/v1/namespaces/default/services/${id}/proxy/hi`, s.admin);
      assert.equal(r.status, 200, `${id}: ${r.text}`);
      assert.equal(r.text, 'web GET /hi ');
    }
    const noPort = await s.request('GET', '/api/v1/namespaces/default/services/s:81/proxy/', s.admin);
    assert.equal(noPort.status, 503);
    assert.equal(noPort.json.message, 'no service port 81 found for service "s"');
    const unnamed = await s.request('GET', '/api/v1/namespaces/default/services/s/proxy/', s.admin);
    assert.equal(unnamed.status, 503);
    assert.equal(unnamed.json.message, 'no endpoints available for service "s"');
    if (KUBECTL) {
      const r = await kubectl('get', '--raw', '/api/v1/namespaces/default/services/s:http/proxy/');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'web GET / ');
    }
  });
});
