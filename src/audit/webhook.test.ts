import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { FakeClock, realClock } from '../apimachinery/clock.js';
import { parseFlags } from '../apimachinery/flags.js';
import { setFlavor } from '../naming/index.js';
import { createCA, issueCert, type TestCert } from '../testing/pki.js';
import { webhookKubeconfig } from '../testing/https-server.js';
import { eventually } from '../testing/wait.js';
import { BufferedBackend, EventSnapshot, withMode } from './backend.js';
import { auditFlagDefinitions, auditorFromFlags } from './flags.js';
import { AuditMetrics } from './metrics.js';
import type { AuditEvent } from './types.js';
import { DEFAULT_WEBHOOK_TIMEOUT_MS, loadWebhookConfig, WebhookBackend } from './webhook.js';

setFlavor('orch');

const ev = (id: string): EventSnapshot =>
  new EventSnapshot({ level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: { username: 'u' }, sourceIPs: [], userAgent: '', requestReceivedTimestamp: 0, stageTimestamp: 0 } as AuditEvent);

interface Received {
  body: { kind: string; apiVersion: string; items: { auditID: string }[] };
  clientCN: string | undefined;
  contentType: string | undefined;
}

describe('audit webhook backend', () => {
  let ca: TestCert;
  let clientCA: TestCert;
  let client: TestCert;
  let server: Server;
  let url: string;
  const received: Received[] = [];
  let answer = 200;
  const dir = mkdtempSync(join(tmpdir(), 'audit-webhook-'));

  before(async () => {
    ca = await createCA('audit-sink-ca');
    clientCA = await createCA('audit-client-ca');
    client = await issueCert(clientCA, 'kube-apiserver');
    const serving = await issueCert(ca, 'sink', { usage: 'server', ips: ['127.0.0.1'] });
    server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: clientCA.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const peer = (req.socket as TLSSocket).getPeerCertificate();
        received.push({ body: JSON.parse(Buffer.concat(chunks).toString()) as Received['body'], clientCN: peer.subject ? String(peer.subject.CN) : undefined, contentType: String(req.headers["content-type"]) });
        res.writeHead(answer);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/audit`;
  });
  after(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));

  const configFile = (server: string, withClient = true): string => {
    const f = join(dir, `hook-${Math.random()}.kubeconfig`);
    writeFileSync(f, webhookKubeconfig(server, ca, withClient ? client : undefined));
    return f;
  };

  it('POSTs batches as EventLists over HTTPS with the client certificate', async () => {
    received.length = 0;
    const metrics = new AuditMetrics();
    const hook = new WebhookBackend(loadWebhookConfig(configFile(url)), { initialBackoffMs: 10, apiVersion: 'audit.orch.io/v1' }, metrics, realClock);
    const b = new BufferedBackend(hook, { bufferSize: 100, maxBatchSize: 2, maxBatchWaitMs: 60_000, throttleEnable: false, throttleQPS: 0, throttleBurst: 0, asyncDelegate: true }, metrics, realClock);
    b.processEvents([ev('a'), ev('b'), ev('c')]);
    await eventually(() => received.length === 1, 'the first batch');
    await b.shutdown();
    assert.equal(received.length, 2);
    assert.equal(received[0]!.body.kind, 'EventList');
    assert.equal(received[0]!.body.apiVersion, 'audit.orch.io/v1');
    assert.deepEqual(received.map((r) => r.body.items.map((i) => i.auditID)), [['a', 'b'], ['c']]);
    assert.equal(received[0]!.clientCN, 'kube-apiserver');
    assert.equal(received[0]!.contentType, 'application/json');
    assert.equal(await metrics.value('error', 'webhook'), 0);
  });

  it('retries a failing sink, then counts the events as errors', async () => {
    received.length = 0;
    answer = 500;
    try {
      const metrics = new AuditMetrics();
      const hook = new WebhookBackend(loadWebhookConfig(configFile(url)), { initialBackoffMs: 1, apiVersion: 'audit.orch.io/v1' }, metrics, realClock);
      assert.equal(await hook.processEvents([ev('a'), ev('b')]), false);
      assert.equal(received.length, 5);
      assert.equal(await metrics.value('error', 'webhook'), 2);
      await hook.shutdown();
    } finally {
      answer = 200;
    }
  });

  it('a sink that is down costs nothing but the error count', async () => {
    const metrics = new AuditMetrics();
    const hook = new WebhookBackend(loadWebhookConfig(configFile('https://127.0.0.1:1/')), { initialBackoffMs: 1, apiVersion: 'audit.orch.io/v1' }, metrics, realClock);
    assert.equal(await hook.processEvents([ev('a')]), false);
    assert.equal(await metrics.value('error', 'webhook'), 1);
    await hook.shutdown();
  });

  it('without the client certificate the sink refuses the connection: nothing delivered', async () => {
    const metrics = new AuditMetrics();
    const hook = new WebhookBackend(loadWebhookConfig(configFile(url, false)), { initialBackoffMs: 1, apiVersion: 'audit.orch.io/v1', timeoutMs: 1000 }, metrics, realClock);
    received.length = 0;
    assert.equal(await hook.processEvents([ev('a')]), false);
    assert.equal(received.length, 0);
    await hook.shutdown();
  });

  describe('a sink that trickles its answer', () => {
    let trickler: Server;
    let trickleUrl: string;
    /** Per call: how many bytes the sink has sent so far. */
    const calls: { sent: number; timer?: NodeJS.Timeout }[] = [];
    let headersFirst = true;

    before(async () => {
      const serving = await issueCert(ca, 'trickler', { usage: 'server', ips: ['127.0.0.1'] });
      trickler = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
        const call: { sent: number; timer?: NodeJS.Timeout } = { sent: 0 };
        calls.push(call);
        req.resume();
        req.on('end', () => {
          // One byte every 20 ms: the connection is never idle, the answer never ends.
          if (headersFirst) {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.flushHeaders();
            call.timer = setInterval(() => {
              res.write(' ');
              call.sent++;
            }, 20);
          } else {
            const raw = 'HTTP/1.1 200 OK\r\n';
            let i = 0;
            call.timer = setInterval(() => {
              if (i < raw.length) req.socket.write(raw[i++]!);
              call.sent++;
            }, 20);
          }
          res.on('close', () => clearInterval(call.timer));
          req.socket.on('close', () => clearInterval(call.timer));
        });
      });
      await new Promise<void>((r) => trickler.listen(0, '127.0.0.1', r));
      trickleUrl = `https://127.0.0.1:${(trickler.address() as AddressInfo).port}/audit`;
    });
    after(() => new Promise<void>((r) => { for (const c of calls) clearInterval(c.timer); trickler.closeAllConnections(); trickler.close(() => r()); }));

    /** Drives one blocking delivery through its five tries, the deadline and the backoff on a fake clock. */
    async function deliverThroughTrickle(): Promise<{ ok: boolean; logs: string[]; errors: number }> {
      calls.length = 0;
      const clock = new FakeClock();
      const metrics = new AuditMetrics();
      const logs: string[] = [];
      const hook = new WebhookBackend(loadWebhookConfig(configFile(trickleUrl)), { initialBackoffMs: 1000, apiVersion: 'audit.orch.io/v1', log: (m) => logs.push(m) }, metrics, clock);
      const blocking = withMode(hook, 'blocking', { bufferSize: 1, maxBatchSize: 1, maxBatchWaitMs: 1, throttleEnable: false, throttleQPS: 0, throttleBurst: 0, asyncDelegate: false }, metrics, clock);
      let settled = false;
      const result = Promise.resolve(blocking.processEvents([ev('slow')])).finally(() => (settled = true));
      for (let attempt = 1; attempt <= 5; attempt++) {
        await eventually(() => calls.length === attempt && calls[attempt - 1]!.sent >= 2, `try ${attempt} trickling`);
        // Just short of the deadline the call still waits; at the deadline it fails.
        clock.step(DEFAULT_WEBHOOK_TIMEOUT_MS - 1);
        assert.equal(settled, false);
        clock.step(1);
        if (attempt < 5) {
          // The backoff before the next try (1 s, then ×1.5, each with up to 20 % jitter).
          await eventually(() => clock.waiting() === 1, `the backoff after try ${attempt}`);
          clock.step(1000 * 1.5 ** (attempt - 1) * 1.2);
        }
      }
      const ok = await result;
      await hook.shutdown();
      return { ok, logs, errors: await metrics.value('error', 'webhook') };
    }

    it('fails each call at the 30 s deadline; blocking mode logs the failure and lets the request go on', async () => {
      headersFirst = true;
      const { ok, logs, errors } = await deliverThroughTrickle();
      assert.equal(ok, true);
      assert.equal(calls.length, 5);
      assert.equal(errors, 1);
      assert.deepEqual(logs, [
        "Error in audit plugin 'webhook' affecting 1 audit events: unexpected error when reading response body. Please retry. Original error: net/http: request canceled (Client.Timeout or context cancellation while reading body)",
      ]);
    });

    it('the deadline also covers a sink that trickles its status line', async () => {
      headersFirst = false;
      const { ok, logs } = await deliverThroughTrickle();
      assert.equal(ok, true);
      assert.deepEqual(logs, [`Error in audit plugin 'webhook' affecting 1 audit events: Post "${trickleUrl}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`]);
    });
  });

  it('refuses bad webhook configurations and flag values at start, naming them', () => {
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
    const plain = join(dir, 'plain.kubeconfig');
    writeFileSync(plain, webhookKubeconfig('http://127.0.0.1:1/', ca));
    const garbage = join(dir, 'garbage.kubeconfig');
    writeFileSync(garbage, 'clusters: [');
    const start = (...args: string[]) => auditorFromFlags(parseFlags([`--audit-policy-file=${policy}`, ...args], auditFlagDefinitions));
    const hook = configFile(url);
    const cases: [string[], RegExp][] = [
      [[`--audit-webhook-config-file=${plain}`], /must use https/],
      [[`--audit-webhook-config-file=${garbage}`], /initializing audit webhook: invalid configuration in ".*garbage.kubeconfig"/],
      [[`--audit-webhook-config-file=${join(dir, 'missing')}`], /initializing audit webhook: invalid configuration in ".*missing"/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-mode=async'], /--audit-webhook-mode: invalid audit webhook mode async, allowed modes are "batch,blocking,blocking-strict"/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-batch-buffer-size=0'], /invalid audit batch webhook buffer size 0, must be a positive number/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-batch-throttle-qps=0'], /invalid audit batch webhook throttle QPS 0/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-batch-throttle-qps=fast'], /--audit-webhook-batch-throttle-qps: invalid argument "fast"/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-version=audit.k8s.io/v1beta1'], /--audit-webhook-version: invalid group version/],
      [[`--audit-webhook-config-file=${hook}`, '--audit-webhook-truncate-enabled'], /truncation is not supported/],
      [['--audit-log-path=-', '--audit-log-format=xml'], /invalid audit log format xml, allowed formats are "legacy,json"/],
      [['--audit-log-path=-', '--audit-log-maxsize=-1'], /--audit-log-maxsize -1 can't be a negative number/],
      [['--audit-log-path=-', '--audit-log-maxbackup=-1'], /--audit-log-maxbackup -1 can't be a negative number/],
      [['--audit-log-path=-', '--audit-log-maxage=-1'], /--audit-log-maxage -1 can't be a negative number/],
      [['--audit-log-path=-', '--audit-log-mode=batch', '--audit-log-batch-max-size=0'], /invalid audit batch log max batch size 0/],
      [[`--audit-log-path=${join(policy, 'sub', 'audit.log')}`], /--audit-log-path: ensureLogFile/],
    ];
    for (const [args, message] of cases) assert.throws(() => start(...args), message, args.join(' '));
    // Without a policy nothing is audited; with the upstream group name the version is accepted.
    assert.equal(auditorFromFlags(parseFlags(['--audit-log-path=-'], auditFlagDefinitions)), undefined);
    assert.ok(start('--audit-log-path=-', '--audit-log-version=audit.k8s.io/v1'));
  });
});
