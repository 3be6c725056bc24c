// `npm run bench`: the API server against a raw node:https server that answers the same
// bytes, on loopback, in one run. Each figure is printed with its ratio to that baseline:
//   GET of one object (req/s, p99) at 50 connections; create (req/s) with 64 concurrent
//   clients on sqlite; LIST of 10,000 and 100,000 ConfigMaps (median time of 3, peak RSS); watch
//   fan-out to 1,000 watchers (events/s delivered, p99 delay); start-up time to readyz 200;
//   custom resources (CRD created to first custom resource accepted; creates and LIST of
//   10,000 custom resources against the same figures for ConfigMaps in this run); API priority
//   and fairness (create rate with it on against off, same run; another user's GET p99 while
//   one user floods at 50 concurrent clients, against the same user alone); creates with
//   every request audited at Metadata level to a log file against the same server without
//   audit, each on a fresh start.
// Both servers run as child processes so that their memory is measured alike.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../src/apimachinery/types.js';
import { readKubeconfig, type ClientConfig } from '../src/client/kubeconfig.js';
import { JsonStreamSplitter } from '../src/client/json-stream.js';
import { createStorage } from '../src/storage/index.js';

const ENTRY_POINT = fileURLToPath(new URL('../src/cli/apiserver.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

const GET_SECONDS = Number(process.env.BENCH_GET_SECONDS ?? 5);
const CREATE_SECONDS = Number(process.env.BENCH_CREATE_SECONDS ?? 5);
const LIST_SIZES = (process.env.BENCH_LIST_SIZES ?? '10000,100000').split(',').map(Number);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1000);
const WATCH_EVENTS = Number(process.env.BENCH_WATCH_EVENTS ?? 100);

// ---------------------------------------------------------------------------------------
// The baseline: a raw HTTPS server answering recorded bytes (run with `--raw <dir> <port>`).

interface RawFixtures {
  get: string;
  create: string;
  lists: Record<string, string>;
}

function runRawServer(dir: string, port: number): void {
  const fixtures = JSON.parse(readFileSync(join(dir, 'fixtures.json'), 'utf8')) as RawFixtures;
  const body = (file: string): Buffer => readFileSync(join(dir, file));
  const getBytes = body(fixtures.get);
  const createBytes = body(fixtures.create);
  const watchers = new Set<import('node:http').ServerResponse>();
  const server = https.createServer({ cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) }, (req, res) => {
    const url = req.url ?? '/';
    const send = (code: number, bytes: Buffer | string): void => {
      res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(bytes) });
      res.end(bytes);
    };
    if (url === '/readyz') return send(200, 'ok');
    if (url.startsWith('/watch')) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      watchers.add(res);
      res.on('close', () => watchers.delete(res));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (url === '/emit') {
        // Fan the event out, as the API server does for one write.
        const line = Buffer.concat(chunks);
        for (const w of watchers) w.write(line);
        return send(201, createBytes);
      }
      if (req.method === 'POST') return send(201, createBytes);
      const list = fixtures.lists[url];
      if (list) {
        // Read per request, like a server that builds the answer each time.
        return send(200, body(list));
      }
      send(200, getBytes);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
  process.on('SIGTERM', () => process.exit(0));
}

// ---------------------------------------------------------------------------------------
// Processes and measurements

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS while `work` runs; resolves with the work's result and the peak. */
async function withPeakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peak = rssKiB(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssKiB(pid))), 5);
  try {
    const result = await work();
    peak = Math.max(peak, rssKiB(pid));
    return { result, peakMiB: peak / 1024 };
  } finally {
    clearInterval(timer);
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

class Target {
  readonly agent: https.Agent;

  constructor(
    readonly name: string,
    readonly base: string,
    tls: ClientConfig,
    maxSockets: number,
    /** A bearer token instead of the kubeconfig's client certificate. */
    private readonly token?: string,
  ) {
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets,
      ca: tls.caPem,
      ...(token ? {} : { cert: tls.clientCertPem, key: tls.clientKeyPem }),
    });
  }

  request(method: string, path: string, body?: string): Promise<{ status: number; body: Buffer; firstByteMs: number }> {
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (this.token) headers['Authorization'] = `Bearer ${this.token}`;
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = String(Buffer.byteLength(body));
      }
      const req = https.request(this.base + path, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let firstByteMs = NaN;
        res.on('data', (c: Buffer) => {
          if (chunks.length === 0) firstByteMs = performance.now() - t0;
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), firstByteMs }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** `concurrency` loops for `seconds`, each issuing the next request when its last one ends. */
async function load(
  target: Target,
  concurrency: number,
  seconds: number,
  next: (worker: number, i: number) => { method: string; path: string; body?: string },
): Promise<{ rps: number; p99ms: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; performance.now() < end; i++) {
        const r = next(w, i);
        const t0 = performance.now();
        try {
          const res = await target.request(r.method, r.path, r.body);
          if (res.status >= 300) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99ms: percentile(latencies, 99), errors };
}

interface Child {
  process: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

function startChild(args: string[]): Child {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return {
    process: child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Polls GET /readyz until 200; returns the milliseconds since `t0`. */
async function timeToReady(target: Target, child: Child, t0: number): Promise<number> {
  for (;;) {
    if (child.process.exitCode !== null) throw new Error(`${target.name} exited:\n${child.output()}`);
    const res = await target.request('GET', '/readyz').catch(() => undefined);
    if (res?.status === 200) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 5));
    if (performance.now() - t0 > 60_000) throw new Error(`${target.name} not ready after 60 s:\n${child.output()}`);
  }
}

async function waitForFile(path: string, child: Child): Promise<void> {
  const t0 = Date.now();
  while (!existsSync(path) || !/Serving on /.test(child.output())) {
    if (child.process.exitCode !== null) throw new Error(`the server exited:\n${child.output()}`);
    if (Date.now() - t0 > 60_000) throw new Error(`the server did not start:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const LIST_RUNS = 3;

/** The median time of a few LISTs and the peak RSS over them. */
async function timedList(child: Child, target: Target, path: string): Promise<{ result: { status: number; body: Buffer }; ms: number; firstByteMs: number; peakMiB: number }> {
  const times: number[] = [];
  const firstBytes: number[] = [];
  let peak = 0;
  let last: { status: number; body: Buffer } | undefined;
  for (let i = 0; i < LIST_RUNS; i++) {
    const t = performance.now();
    const { result, peakMiB } = await withPeakRss(child.process.pid!, () => target.request('GET', path));
    times.push(performance.now() - t);
    firstBytes.push(result.firstByteMs);
    if (result.status !== 200) throw new Error(`LIST ${path} answered ${result.status}`);
    peak = Math.max(peak, peakMiB);
    last = result;
  }
  const median = (v: number[]): number => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  return { result: last!, ms: median(times), firstByteMs: median(firstBytes), peakMiB: peak };
}

// ---------------------------------------------------------------------------------------
// Report

const rows: string[][] = [];

function row(figure: string, server: number, baseline: number, unit: string, higherIsBetter: boolean): void {
  const fmt = (n: number): string => (Number.isFinite(n) ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2)) : 'n/a');
  const ratio = baseline > 0 && Number.isFinite(server) ? server / baseline : NaN;
  const note = higherIsBetter ? '(server/baseline, higher is better)' : '(server/baseline, lower is better)';
  rows.push([figure, `${fmt(server)} ${unit}`, `${fmt(baseline)} ${unit}`, Number.isFinite(ratio) ? `${ratio.toFixed(2)}x ${note}` : 'n/a']);
  process.stdout.write(`  ${figure}: ${fmt(server)} ${unit} (baseline ${fmt(baseline)} ${unit})\n`);
}

function printTable(): void {
  const head = ['figure', 'orch-apiserver', 'raw node:https', 'ratio'];
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  process.stdout.write('\n');
  for (const r of all) process.stdout.write(r.map((c, i) => c.padEnd(widths[i]!)).join('  ') + '\n');
}

// ---------------------------------------------------------------------------------------
// The run

const configMap = (namespace: string, name: string, data: Record<string, string> = { key: 'value' }): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

/**
 * Writes `count` ConfigMaps of `namespace` straight into the stopped server's store, as the
 * server itself stores them (the template is an object the server created). The LIST
 * figures measure listing; creating 100,000 objects through the API would take longer than
 * the whole run may.
 */
async function seed(dataDir: string, template: KubeObject, namespace: string, count: number): Promise<void> {
  const storage = await createStorage({ backend: 'sqlite', dataDir });
  try {
    const encoder = new TextEncoder();
    let next = 0;
    await Promise.all(
      Array.from({ length: 256 }, async () => {
        while (next < count) {
          const name = `cm-${next++}`;
          const meta = { ...template.metadata, name, namespace, uid: randomUUID() };
          delete meta.resourceVersion;
          const key = `/registry/core/configmaps/${namespace}/${name}`;
          await storage.create(key, encoder.encode(JSON.stringify({ ...template, metadata: meta })));
        }
      }),
    );
  } finally {
    await storage.close();
  }
}

async function watchFanOut(
  target: Target,
  watchPath: (i: number) => string,
  emit: (seq: number, sentAt: number) => Promise<void>,
): Promise<{ eventsPerSecond: number; p99ms: number; delivered: number }> {
  const delays: number[] = [];
  let delivered = 0;
  let lastReceive = 0;
  const requests: import('node:http').ClientRequest[] = [];
  let connected = 0;
  await new Promise<void>((resolve, reject) => {
    for (let i = 0; i < WATCHERS; i++) {
      const req = https.request(target.base + watchPath(i), { agent: target.agent, headers: { Accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch answered ${res.statusCode}`));
        if (++connected === WATCHERS) resolve();
        const splitter = new JsonStreamSplitter();
        res.on('data', (chunk: Buffer) => {
          const now = performance.timeOrigin + performance.now();
          for (const doc of splitter.push(chunk)) {
            const sentAt = Number((doc as { object?: { data?: { sentAt?: string } } }).object?.data?.sentAt);
            if (!Number.isFinite(sentAt)) continue;
            delivered++;
            delays.push(now - sentAt);
            lastReceive = now;
          }
        });
        res.on('error', () => {});
      });
      req.on('error', reject);
      req.end();
      requests.push(req);
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  const firstSend = performance.timeOrigin + performance.now();
  for (let seq = 0; seq < WATCH_EVENTS; seq++) await emit(seq, performance.timeOrigin + performance.now());
  const expected = WATCHERS * WATCH_EVENTS;
  const deadline = Date.now() + 30_000;
  while (delivered < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  for (const req of requests) req.destroy();
  delays.sort((a, b) => a - b);
  return { eventsPerSecond: delivered / ((lastReceive - firstSend) / 1000), p99ms: percentile(delays, 99), delivered };
}

const CR_LIST_SIZE = Number(process.env.BENCH_CR_LIST_SIZE ?? 10_000);

const WIDGET_CRD = JSON.stringify({
  apiVersion: 'apiextensions.orch.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.bench.example.com' },
  spec: {
    group: 'bench.example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { key: { type: 'string', maxLength: 64 }, replicas: { type: 'integer', minimum: 0, default: 1 } } },
              status: { type: 'object', 'x-orch-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
});

const widget = (namespace: string, name: string): string =>
  JSON.stringify({ apiVersion: 'bench.example.com/v1', kind: 'Widget', metadata: { name, namespace }, spec: { key: 'value' } });

/** Creates `count` objects with 64 concurrent clients. */
async function fill(api: Target, count: number, request: (i: number) => { path: string; body: string }): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < count) {
        const r = request(next++);
        const res = await api.request('POST', r.path, r.body);
        if (res.status !== 201) throw new Error(`create answered ${res.status}: ${res.body.toString()}`);
      }
    }),
  );
}

/** Custom resources against ConfigMaps, in this run: the baseline column is the ConfigMap figure. */
async function customResources(api: Target, configMapCreatesPerSecond: number): Promise<void> {
  process.stdout.write('\nCustom resources (baseline: the same figure for ConfigMaps):\n');
  for (const ns of ['crs', 'crl', 'cms']) {
    await api.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  }
  const t0 = performance.now();
  const crd = await api.request('POST', '/apis/apiextensions.orch.io/v1/customresourcedefinitions', WIDGET_CRD);
  if (crd.status !== 201) throw new Error(`CRD create answered ${crd.status}: ${crd.body.toString()}`);
  for (;;) {
    const res = await api.request('POST', '/apis/bench.example.com/v1/namespaces/crs/widgets', widget('crs', 'first'));
    if (res.status === 201) break;
    if (performance.now() - t0 > 30_000) throw new Error(`no custom resource accepted 30 s after its CRD: ${res.status} ${res.body.toString()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const firstMs = performance.now() - t0;
  process.stdout.write(`  CRD created to first custom resource accepted: ${firstMs.toFixed(0)} ms\n`);
  rows.push(['CRD created to first custom resource accepted', `${firstMs.toFixed(0)} ms`, '', '']);
  const creates = await load(api, 64, CREATE_SECONDS, (w, i) => ({
    method: 'POST',
    path: '/apis/bench.example.com/v1/namespaces/crs/widgets',
    body: widget('crs', `c-${w}-${i}`),
  }));
  row('custom resource create, req/s (vs ConfigMaps)', creates.rps, configMapCreatesPerSecond, 'req/s', true);
  if (creates.errors) process.stdout.write(`  (${creates.errors} server errors)\n`);
  // Lists of the same size: the created objects above stay in their own namespace.
  await fill(api, CR_LIST_SIZE, (i) => ({ path: '/apis/bench.example.com/v1/namespaces/crl/widgets', body: widget('crl', `l-${i}`) }));
  await fill(api, CR_LIST_SIZE, (i) => ({ path: '/api/v1/namespaces/cms/configmaps', body: configMap('cms', `l-${i}`) }));
  const listed = async (path: string): Promise<{ ms: number; items: number }> => {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < LIST_RUNS; i++) {
      const t = performance.now();
      const res = await api.request('GET', path);
      times.push(performance.now() - t);
      if (res.status !== 200) throw new Error(`LIST ${path} answered ${res.status}`);
      items = (JSON.parse(res.body.toString()) as { items: unknown[] }).items.length;
    }
    times.sort((a, b) => a - b);
    return { ms: times[Math.floor(times.length / 2)]!, items };
  };
  const crList = await listed('/apis/bench.example.com/v1/namespaces/crl/widgets');
  const cmList = await listed('/api/v1/namespaces/cms/configmaps');
  row(`LIST ${crList.items} custom resources (vs ${cmList.items} ConfigMaps)`, crList.ms, cmList.ms, 'ms', false);
}

// ---------------------------------------------------------------------------------------
// API priority and fairness

const FLOOD_SECONDS = Number(process.env.BENCH_FLOOD_SECONDS ?? 3);

/** A server of its own on sqlite, and clients that are not system:masters (exempt): service accounts with cluster-admin. */
async function apfServer(work: string, name: string, flags: string[], children: Child[], targets: Target[]): Promise<{ user(sa: string, sockets: number): Promise<Target> }> {
  const dataDir = join(work, name);
  const port = await freePort();
  const child = startChild([ENTRY_POINT, '--data-dir', dataDir, '--storage-backend', 'sqlite', '--bind-address', '127.0.0.1', '--secure-port', String(port), ...flags]);
  children.push(child);
  await waitForFile(join(dataDir, 'admin.kubeconfig'), child);
  const tls = readKubeconfig(join(dataDir, 'admin.kubeconfig'));
  const admin = new Target(name, `https://127.0.0.1:${port}`, tls, 8);
  targets.push(admin);
  await timeToReady(admin, child, performance.now());
  for (const ns of ['bench', 'flood']) await admin.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  // What the flood and the other user list: small, so that the figure is about waiting, not work.
  for (let i = 0; i < 20; i++) await admin.request('POST', '/api/v1/namespaces/flood/configmaps', configMap('flood', `cm-${i}`));
  const rbac = JSON.parse((await admin.request('GET', '/apis')).body.toString()).groups.find((g: { name: string }) => g.name.startsWith('rbac.authorization.')).name as string;
  const authn = rbac.replace(/^rbac\.authorization\./, 'authentication.');
  return {
    async user(sa, sockets) {
      await admin.request('POST', '/api/v1/namespaces/bench/serviceaccounts', JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa } }));
      const binding = { apiVersion: `${rbac}/v1`, kind: 'ClusterRoleBinding', metadata: { name: `bench-${sa}` }, roleRef: { apiGroup: rbac, kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: sa, namespace: 'bench' }] };
      await admin.request('POST', `/apis/${rbac}/v1/clusterrolebindings`, JSON.stringify(binding));
      const tr = await admin.request('POST', `/api/v1/namespaces/bench/serviceaccounts/${sa}/token`, JSON.stringify({ apiVersion: `${authn}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: 3600 } }));
      if (tr.status !== 201) throw new Error(`TokenRequest answered ${tr.status}: ${tr.body.toString()}`);
      const token = (JSON.parse(tr.body.toString()) as { status: { token: string } }).status.token;
      const t = new Target(`${name}/${sa}`, admin.base, tls, sockets, token);
      targets.push(t);
      return t;
    },
  };
}

/** The victim's sequential GETs for FLOOD_SECONDS: p99 and errors. */
async function victimRun(victim: Target): Promise<{ p99ms: number; errors: number }> {
  const r = await load(victim, 1, FLOOD_SECONDS, () => ({ method: 'GET', path: '/api/v1/namespaces/flood/configmaps' }));
  return { p99ms: r.p99ms, errors: r.errors };
}

async function floodRatio(label: string, victim: Target, flooder: Target): Promise<void> {
  const alone = await victimRun(victim);
  let flooding = true;
  let floodRequests = 0;
  let floodRefused = 0;
  const flood = Array.from({ length: 50 }, async () => {
    while (flooding) {
      const r = await flooder.request('GET', '/api/v1/namespaces/flood/configmaps').catch(() => ({ status: 0 }));
      floodRequests++;
      if (r.status === 429) floodRefused++;
    }
  });
  const during = await victimRun(victim);
  flooding = false;
  await Promise.all(flood);
  row(`${label}: other user's GET p99, flood vs alone`, during.p99ms, alone.p99ms, 'ms', false);
  process.stdout.write(`  ${label}: victim errors ${alone.errors} alone, ${during.errors} in the flood; flood ${floodRequests} requests, ${floodRefused} refused with 429\n`);
}

async function priorityAndFairness(work: string, children: Child[], targets: Target[]): Promise<void> {
  process.stdout.write('\nAPI priority and fairness: create, 64 concurrent clients (a service account, not exempt), sqlite, on against off:\n');
  const on = await apfServer(work, 'apf-on', [], children, targets);
  const off = await apfServer(work, 'apf-off', ['--enable-priority-and-fairness=false'], children, targets);
  const onWriter = await on.user('writer', 64);
  const offWriter = await off.user('writer', 64);
  const creates = (t: Target, round: number) =>
    load(t, 64, CREATE_SECONDS, (w, i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap('bench', `apf-${round}-${w}-${i}`) }));
  // Two rounds each, interleaved, best of two: the machine's drift hits both alike.
  const offRates: number[] = [];
  const onRates: number[] = [];
  for (let round = 0; round < 2; round++) {
    offRates.push((await creates(offWriter, round)).rps);
    onRates.push((await creates(onWriter, round)).rps);
  }
  row('create, req/s, priority and fairness on (vs off)', Math.max(...onRates), Math.max(...offRates), 'req/s', true);

  process.stdout.write(`\nA flood from one user at 50 concurrent clients, another user's sequential GETs (${FLOOD_SECONDS} s each):\n`);
  await floodRatio('APF on, default limits', await on.user('victim', 1), await on.user('flooder', 50));
  // Small limits, so that the flood is more than the server admits at once.
  const small = ['--max-requests-inflight=8', '--max-mutating-requests-inflight=4'];
  const onSmall = await apfServer(work, 'apf-on-small', small, children, targets);
  await floodRatio('APF on, in-flight 8+4', await onSmall.user('victim', 1), await onSmall.user('flooder', 50));
  const offSmall = await apfServer(work, 'apf-off-small', [...small, '--enable-priority-and-fairness=false'], children, targets);
  await floodRatio('APF off, in-flight 8+4', await offSmall.user('victim', 1), await offSmall.user('flooder', 50));
}

/**
 * Create req/s with an audit policy recording every request at Metadata level to a log file
 * (the default blocking mode), against the same server started without audit. The runs go
 * off, on, on, off, so that drift in the machine's load falls on both alike.
 */
async function auditCreates(serverArgs: string[], port: number, tls: ClientConfig, work: string): Promise<void> {
  const policy = join(work, 'audit-policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.orch.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
  const rates: Record<'off' | 'on', number> = { off: 0, on: 0 };
  for (const [run, mode] of (['off', 'on', 'on', 'off'] as const).entries()) {
    const args = mode === 'on' ? [...serverArgs, '--audit-policy-file', policy, '--audit-log-path', join(work, 'audit', 'audit.log')] : serverArgs;
    const child = startChild(args);
    const api = new Target(`orch-apiserver (audit ${mode})`, `https://127.0.0.1:${port}`, tls, 64);
    try {
      await timeToReady(api, child, performance.now());
      const ns = `audit-${mode}-${run}`;
      await api.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
      const r = await load(api, 64, CREATE_SECONDS, (w, i) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: configMap(ns, `c-${w}-${i}`) }));
      if (r.errors) process.stdout.write(`  (${r.errors} server errors with audit ${mode})\n`);
      process.stdout.write(`  audit ${mode}: ${r.rps.toFixed(0)} req/s\n`);
      rates[mode] += r.rps / 2;
    } finally {
      api.close();
      await child.stop();
    }
  }
  const lines = existsSync(join(work, 'audit', 'audit.log')) ? readFileSync(join(work, 'audit', 'audit.log'), 'utf8').split('\n').length - 1 : 0;
  process.stdout.write(`  (${lines} audit events written)\n`);
  row('create with audit at Metadata to a file, req/s (vs no audit)', rates.on, rates.off, 'req/s', true);
}

async function main(): Promise<void> {
  if (!existsSync(ENTRY_POINT)) throw new Error(`the server entry point ${ENTRY_POINT} is missing: run npm run build`);
  const work = mkdtempSync(join(tmpdir(), 'orch-bench-'));
  const dataDir = join(work, 'data');
  const children: Child[] = [];
  const targets: Target[] = [];
  try {
    // `BENCH_ONLY=apf` runs the priority and fairness figures alone.
    if (process.env.BENCH_ONLY === 'apf') {
      await priorityAndFairness(work, children, targets);
      printTable();
      return;
    }
    process.stdout.write('Starting orch-apiserver (sqlite) and the raw node:https baseline...\n');
    const port = await freePort();
    const serverArgs = [ENTRY_POINT, '--data-dir', dataDir, '--storage-backend', 'sqlite', '--bind-address', '127.0.0.1', '--secure-port', String(port)];

    // Start-up to readyz 200, first start (generates the PKI), then the measured server.
    let t0 = performance.now();
    let server = startChild(serverArgs);
    await waitForFile(join(dataDir, 'admin.kubeconfig'), server);
    const tls = readKubeconfig(join(dataDir, 'admin.kubeconfig'));
    let api = new Target('orch-apiserver', `https://127.0.0.1:${port}`, tls, 64);
    const firstStartMs = await timeToReady(api, server, t0);
    await server.stop();
    api.close();
    t0 = performance.now();
    server = startChild(serverArgs);
    children.push(server);
    api = new Target('orch-apiserver', `https://127.0.0.1:${port}`, tls, 64);
    targets.push(api);
    const startMs = await timeToReady(api, server, t0);

    // Fixtures the raw server answers with: the server's own bytes.
    for (const ns of ['bench', 'list-a', 'list-b', 'fan']) {
      await api.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    }
    const created = await api.request('POST', '/api/v1/namespaces/bench/configmaps', configMap('bench', 'one'));
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.body.toString()}`);
    const got = await api.request('GET', '/api/v1/namespaces/bench/configmaps/one');
    writeFileSync(join(work, 'get.json'), got.body);
    writeFileSync(join(work, 'create.json'), created.body);
    writeFileSync(join(work, 'tls.crt'), readFileSync(join(dataDir, 'pki', 'apiserver.crt')));
    writeFileSync(join(work, 'tls.key'), readFileSync(join(dataDir, 'pki', 'apiserver.key')));
    const fixtures: RawFixtures = { get: 'get.json', create: 'create.json', lists: {} };
    const writeFixtures = (): void => writeFileSync(join(work, 'fixtures.json'), JSON.stringify(fixtures));

    const rawPort = await freePort();
    writeFixtures();
    let rawT0 = performance.now();
    let raw = startChild([SELF, '--raw', work, String(rawPort)]);
    children.push(raw);
    let baseline = new Target('raw', `https://127.0.0.1:${rawPort}`, tls, 64);
    targets.push(baseline);
    const rawStartMs = await timeToReady(baseline, raw, rawT0);
    // `BENCH_ONLY=list` runs the LIST figures (and start-up) alone.
    const listOnly = process.env.BENCH_ONLY === 'list';
    if (!listOnly) {
      process.stdout.write('\nGET of one object, 50 connections:\n');
      const getPath = '/api/v1/namespaces/bench/configmaps/one';
      const getServer = await load(api, 50, GET_SECONDS, () => ({ method: 'GET', path: getPath }));
      const getRaw = await load(baseline, 50, GET_SECONDS, () => ({ method: 'GET', path: getPath }));
      row('GET one object, req/s', getServer.rps, getRaw.rps, 'req/s', true);
      row('GET one object, p99', getServer.p99ms, getRaw.p99ms, 'ms', false);
      if (getServer.errors) process.stdout.write(`  (${getServer.errors} server errors)\n`);

      process.stdout.write('\nCreate, 64 concurrent clients, sqlite:\n');
      const createServer = await load(api, 64, CREATE_SECONDS, (w, i) => ({
        method: 'POST',
        path: '/api/v1/namespaces/bench/configmaps',
        body: configMap('bench', `c-${w}-${i}`),
      }));
      const createRaw = await load(baseline, 64, CREATE_SECONDS, (w, i) => ({
        method: 'POST',
        path: '/api/v1/namespaces/bench/configmaps',
        body: configMap('bench', `c-${w}-${i}`),
      }));
      row('create, req/s', createServer.rps, createRaw.rps, 'req/s', true);
      if (createServer.errors) process.stdout.write(`  (${createServer.errors} server errors)\n`);

      process.stdout.write('\nCreate with audit at Metadata to a file, against no audit:\n');
      await server.stop();
      api.close();
      await auditCreates(serverArgs, port, tls, work);
      server = startChild(serverArgs);
      children.push(server);
      api = new Target('orch-apiserver', `https://127.0.0.1:${port}`, tls, 64);
      targets.push(api);
      await timeToReady(api, server, performance.now());

      await customResources(api, createServer.rps);

      process.stdout.write(`\nWatch fan-out, ${WATCHERS} watchers, ${WATCH_EVENTS} events:\n`);
      const fanList = JSON.parse((await api.request('GET', '/api/v1/namespaces/fan/configmaps')).body.toString()) as { metadata: { resourceVersion: string } };
      const fanAgent = (t: Target): Target => new Target(t.name, t.base, tls, Infinity);
      const apiWatch = fanAgent(api);
      const rawWatch = fanAgent(baseline);
      targets.push(apiWatch, rawWatch);
      const serverFan = await watchFanOut(
        apiWatch,
        () => `/api/v1/namespaces/fan/configmaps?watch=true&resourceVersion=${fanList.metadata.resourceVersion}`,
        async (seq, sentAt) => {
          await api.request('POST', '/api/v1/namespaces/fan/configmaps', configMap('fan', `e-${seq}`, { sentAt: String(sentAt) }));
        },
      );
      const rawFan = await watchFanOut(
        rawWatch,
        () => '/watch',
        async (seq, sentAt) => {
          const event = JSON.stringify({ type: 'ADDED', object: JSON.parse(configMap('fan', `e-${seq}`, { sentAt: String(sentAt) })) }) + '\n';
          await baseline.request('POST', '/emit', event);
        },
      );
      row('watch fan-out, events/s delivered', serverFan.eventsPerSecond, rawFan.eventsPerSecond, 'events/s', true);
      row('watch fan-out, p99 delay', serverFan.p99ms, rawFan.p99ms, 'ms', false);
      if (serverFan.delivered < WATCHERS * WATCH_EVENTS) process.stdout.write(`  (server delivered ${serverFan.delivered} of ${WATCHERS * WATCH_EVENTS})\n`);
    }

    process.stdout.write('\nLIST of ConfigMaps:\n');
    const small = LIST_SIZES[0] ?? 10_000;
    const large = LIST_SIZES[1] ?? 100_000;
    const template = JSON.parse(created.body.toString()) as KubeObject;
    // The benchmarks above made ConfigMaps too: list-b tops the total up to `large`.
    const existing = (JSON.parse((await api.request('GET', '/api/v1/configmaps')).body.toString()) as { items: unknown[] }).items.length;
    await server.stop();
    api.close();
    await seed(dataDir, template, 'list-a', small);
    await seed(dataDir, template, 'list-b', Math.max(0, large - small - existing));
    t0 = performance.now();
    server = startChild(serverArgs);
    children.push(server);
    api = new Target('orch-apiserver', `https://127.0.0.1:${port}`, tls, 64);
    targets.push(api);
    const loadedStartMs = await timeToReady(api, server, t0);
    const lists = [
      { path: '/api/v1/namespaces/list-a/configmaps' },
      // Every namespace: list-a, list-b and the objects the benchmarks above made, `large` in all.
      { path: '/api/v1/configmaps' },
    ];
    const serverLists: { ms: number; firstByteMs: number; mib: number; items: number }[] = [];
    for (const l of lists) {
      const { result, ms, firstByteMs, peakMiB } = await timedList(server, api, l.path);
      const file = `list-${serverLists.length}.json`;
      writeFileSync(join(work, file), result.body);
      fixtures.lists[l.path] = file;
      serverLists.push({ ms, firstByteMs, mib: peakMiB, items: (JSON.parse(result.body.toString()) as { items: unknown[] }).items.length });
    }
    // The raw server must know the list fixtures: restart it with them.
    await raw.stop();
    baseline.close();
    writeFixtures();
    rawT0 = performance.now();
    raw = startChild([SELF, '--raw', work, String(rawPort)]);
    children.push(raw);
    baseline = new Target('raw', `https://127.0.0.1:${rawPort}`, tls, 64);
    targets.push(baseline);
    await timeToReady(baseline, raw, rawT0);
    for (const [i, l] of lists.entries()) {
      const { ms, firstByteMs, peakMiB } = await timedList(raw, baseline, l.path);
      const srv = serverLists[i]!;
      row(`LIST ${srv.items} ConfigMaps, time`, srv.ms, ms, 'ms', false);
      row(`LIST ${srv.items} ConfigMaps, time to first byte`, srv.firstByteMs, firstByteMs, 'ms', false);
      row(`LIST ${srv.items} ConfigMaps, peak RSS`, srv.mib, peakMiB, 'MiB', false);
    }

    process.stdout.write('\nStart-up to readyz 200:\n');
    row('start-up to readyz 200 (existing data dir)', startMs, rawStartMs, 'ms', false);
    row('start-up to readyz 200 (first start, PKI generated)', firstStartMs, rawStartMs, 'ms', false);
    row(`start-up to readyz 200 (${large} ConfigMaps stored)`, loadedStartMs, rawStartMs, 'ms', false);
    if (!listOnly) await priorityAndFairness(work, children, targets);
    printTable();
  } finally {
    for (const t of targets) t.close();
    for (const c of children) await c.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--raw') {
  runRawServer(process.argv[3]!, Number(process.argv[4]));
} else {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
