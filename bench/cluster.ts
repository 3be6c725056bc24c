// The cluster figures of `npm run bench` (groups `cluster` and `cluster-hold`, each run only on
// request: `BENCH_ONLY=cluster`, `BENCH_ONLY=cluster-hold`; the first takes several minutes):
//   cluster       30,000 pods created at a fixed concurrency onto 1,000 simulated nodes: pods
//                 placed per second and Running per second, against the bare create rate of a
//                 server with neither scheduler nor node agent (the ceiling); a Deployment of
//                 10,000 replicas from create to rollout done, then a rolling update of it (pods
//                 replaced per second); 100 single-replica Deployments to Available.
//   cluster-hold  1,000 nodes heartbeating with 100,000 pods stored and Running, for BENCH_HOLD_SECONDS (300):
//                 server RSS, heartbeat writes per second, p99 of a GET and of a namespace LIST
//                 from another client, the SQLite file and WAL at start and end.
// Sizes: BENCH_CLUSTER_NODES, BENCH_CLUSTER_PODS, BENCH_CLUSTER_REPLICAS,
// BENCH_CLUSTER_DEPLOYMENTS, BENCH_CLUSTER_CONCURRENCY, BENCH_HOLD_PODS, BENCH_HOLD_SECONDS.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { readKubeconfig } from '../src/client/kubeconfig.js';

/** What bench/server.ts lends the cluster groups: its processes and its report. */
export interface ClusterBench {
  entryPoint: string;
  work: string;
  startChild(args: string[]): { process: ChildProcess; output(): string; stop(): Promise<void> };
  freePort(): Promise<number>;
  rssKiB(pid: number): number;
  row(figure: string, value: number, baseline: number, unit: string, higherIsBetter: boolean, opts?: { goal?: { on: 'value' | 'ratio'; op: '<=' | '>='; limit: number }; baselineUnit?: string; baselineName?: string }): void;
  note(figure: string, value: number, unit: string): void;
  /** Names the group the rows that follow belong to. */
  group(name: 'cluster' | 'cluster-hold'): void;
}

interface Tracked extends ClusterBench {
  track(stop: () => Promise<void> | void): void;
}

const env = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name}: not a number: ${process.env[name]}`);
  return v;
};
const NODES = env('BENCH_CLUSTER_NODES', 1000);
const PODS = env('BENCH_CLUSTER_PODS', 30_000);
const REPLICAS = env('BENCH_CLUSTER_REPLICAS', 10_000);
const DEPLOYMENTS = env('BENCH_CLUSTER_DEPLOYMENTS', 100);
const CONCURRENCY = env('BENCH_CLUSTER_CONCURRENCY', 64);
const HOLD_PODS = env('BENCH_HOLD_PODS', 100_000);
const HOLD_SECONDS = env('BENCH_HOLD_SECONDS', 300);
/** KWOK's published figure for pods created to Running, and what users report for Deployments. */
const KWOK_PODS_PER_SECOND = 20;
const KWOK_DEPLOYMENTS_PER_SECOND = 5;

/** A lean client: one keep-alive agent, JSON in and out, nothing else. */
class Lean {
  private readonly agent: https.Agent;
  constructor(
    readonly base: string,
    kubeconfig: string,
    sockets: number,
  ) {
    const c = readKubeconfig(kubeconfig);
    this.agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: c.caPem, cert: c.clientCertPem, key: c.clientKeyPem });
  }

  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; text: string }> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { Accept: 'application/json' };
      if (data !== undefined) Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(data)) });
      const req = https.request(this.base + path, { method, agent: this.agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(data);
    });
  }

  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const r = await this.request(method, path, body, contentType);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    return JSON.parse(r.text) as T;
  }

  /** Follows a watch, calling `onEvent` for each; resolves the returned stop function once the stream is open. */
  watch(path: string, onEvent: (type: string, obj: Record<string, unknown>) => void, onClose: () => void = () => {}): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const req = https.request(this.base + path, { method: 'GET', agent: false, ...this.agentTls(), headers: { Accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch ${path}: ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim() === '') continue;
            const e = JSON.parse(line) as { type: string; object: Record<string, unknown> };
            onEvent(e.type, e.object);
          }
        });
        res.on('error', () => {});
        // The server may end a watch that falls behind: the caller then counts by listing.
        res.on('close', onClose);
        resolve(() => req.destroy());
      });
      req.on('error', (err) => reject(err));
      req.end();
    });
  }

  private agentTls(): https.RequestOptions {
    const o = this.agent.options;
    return { ca: o.ca, cert: o.cert, key: o.key };
  }

  close(): void {
    this.agent.destroy();
  }
}

interface Server {
  client: Lean;
  pid: number;
  dataDir: string;
  stop(): Promise<void>;
}

async function startServer(b: Tracked, name: string, flags: string[]): Promise<Server> {
  const dataDir = join(b.work, name);
  mkdirSync(dataDir, { recursive: true });
  const port = await b.freePort();
  const child = b.startChild([b.entryPoint, '--data-dir', dataDir, '--storage-backend', 'sqlite', '--compat', 'kubernetes', '--bind-address', '127.0.0.1', '--secure-port', String(port), ...flags]);
  b.track(() => child.stop());
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  const t0 = Date.now();
  while (!existsSync(kubeconfig) || !/Serving on /.test(child.output())) {
    if (child.process.exitCode !== null) throw new Error(`${name} exited:\n${child.output()}`);
    if (Date.now() - t0 > 120_000) throw new Error(`${name} did not start:\n${child.output()}`);
    await sleep(20);
  }
  const client = new Lean(`https://127.0.0.1:${port}`, kubeconfig, CONCURRENCY + 8);
  b.track(() => client.close());
  for (;;) {
    const r = await client.request('GET', '/readyz').catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() - t0 > 120_000) throw new Error(`${name} not ready:\n${child.output()}`);
    await sleep(20);
  }
  return {
    client,
    pid: child.process.pid!,
    dataDir,
    async stop() {
      client.close();
      await child.stop();
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `probe` answers true, polling every `everyMs`; fails after `timeoutMs`. */
async function until(what: string, probe: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 250): Promise<void> {
  const t0 = Date.now();
  while (!(await probe())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function readyNodes(s: Server): Promise<number> {
  const list = await s.client.json<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>('GET', '/api/v1/nodes');
  return list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
}

const pod = (name: string, nodeName?: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
});

/** `count` creates from `concurrency` loops; resolves with the creates per second. */
async function createAll(client: Lean, count: number, concurrency: number, request: (i: number) => { path: string; body: unknown }): Promise<{ perSecond: number; errors: number }> {
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const r = request(i);
        const res = await client.request('POST', r.path, r.body).catch(() => ({ status: 0, text: '' }));
        if (res.status !== 201) errors++;
      }
    }),
  );
  return { perSecond: count / ((performance.now() - t0) / 1000), errors };
}

async function namespace(client: Lean, name: string): Promise<void> {
  await client.json('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

async function clusterServer(b: Tracked): Promise<Server> {
  process.stdout.write(`\nStarting a server with ${NODES} simulated nodes (sqlite)...\n`);
  const s = await startServer(b, 'cluster', ['--simulated-nodes', String(NODES)]);
  await until(`${NODES} Ready nodes`, async () => (await readyNodes(s)) >= NODES, 300_000, 1000);
  return s;
}

/** Pods created to placed and Running on the simulated nodes; the bare create rate as the ceiling. */
async function podsToRunning(b: Tracked, s: Server): Promise<void> {
  process.stdout.write(`\n${PODS} pods created at ${CONCURRENCY} concurrent creates onto ${NODES} simulated nodes:\n`);
  await namespace(s.client, 'pods');
  let placed = 0;
  let running = 0;
  let lastPlaced = 0;
  let lastRunning = 0;
  const seenPlaced = new Set<string>();
  const seenRunning = new Set<string>();
  let watching = true;
  const seen = (obj: Record<string, unknown>): void => {
    const name = (obj.metadata as { name: string }).name;
    if ((obj.spec as { nodeName?: string }).nodeName && !seenPlaced.has(name)) {
      seenPlaced.add(name);
      placed++;
      lastPlaced = performance.now();
    }
    if ((obj.status as { phase?: string } | undefined)?.phase === 'Running' && !seenRunning.has(name)) {
      seenRunning.add(name);
      running++;
      lastRunning = performance.now();
    }
  };
  const stopWatch = await s.client.watch(
    '/api/v1/namespaces/pods/pods?watch=1&allowWatchBookmarks=false',
    (type, obj) => {
      if (type === 'ADDED' || type === 'MODIFIED') seen(obj);
    },
    () => (watching = false),
  );
  const t0 = performance.now();
  const created = await createAll(s.client, PODS, CONCURRENCY, (i) => ({ path: '/api/v1/namespaces/pods/pods', body: pod(`p-${i}`) }));
  let lastReport = 0;
  const progress = async (): Promise<boolean> => {
    // Without the watch, a LIST every probe: times are then known to the probe's period.
    if (!watching) for (const p of (await s.client.json<{ items: Record<string, unknown>[] }>('GET', '/api/v1/namespaces/pods/pods')).items) seen(p);
    if (process.env.BENCH_VERBOSE && performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      process.stdout.write(`  (${placed} placed, ${running} Running${watching ? '' : ', by listing'})\n`);
    }
    return running >= PODS - created.errors;
  };
  await until(`every pod Running (${created.errors} failed creates)`, progress, 600_000).catch((err: unknown) => {
    throw new Error(`${String(err)}: ${placed} placed, ${running} Running`);
  });
  stopWatch();
  const placedPerSecond = placed / ((lastPlaced - t0) / 1000);
  const runningPerSecond = running / ((lastRunning - t0) / 1000);

  process.stdout.write('Baseline: the same creates into a server without scheduler and node agent...\n');
  const bare = await startServer(b, 'bare', ['--scheduler=false']);
  await namespace(bare.client, 'pods');
  const ceiling = await createAll(bare.client, PODS, CONCURRENCY, (i) => ({ path: '/api/v1/namespaces/pods/pods', body: pod(`p-${i}`) }));
  await bare.stop();
  const baselineName = 'bare creates, no scheduler or node agent';
  b.note(`pods created per second (${PODS}, ${CONCURRENCY} concurrent)`, created.perSecond, 'pods/s');
  b.row(`pods placed per second (${PODS} pods, ${NODES} nodes)`, placedPerSecond, ceiling.perSecond, 'pods/s', true, { baselineName, goal: { on: 'value', op: '>=', limit: 1000 } });
  b.row(`pods Running per second (${PODS} pods, ${NODES} nodes)`, runningPerSecond, ceiling.perSecond, 'pods/s', true, { baselineName, goal: { on: 'value', op: '>=', limit: 1000 } });
  b.row('pods Running per second against KWOK\'s published figure', runningPerSecond, KWOK_PODS_PER_SECOND, 'pods/s', true, { baselineName: 'KWOK, published' });
  if (created.errors + ceiling.errors > 0) process.stdout.write(`  (${created.errors} failed creates, ${ceiling.errors} in the baseline)\n`);
  // The pods leave room for what follows: delete the namespace and wait for it to go.
  await s.client.request('DELETE', '/api/v1/namespaces/pods');
  await until('the pods namespace to go', async () => (await s.client.request('GET', '/api/v1/namespaces/pods')).status === 404, 600_000, 1000);
}

interface DeploymentStatus {
  metadata: { generation: number };
  spec: { replicas: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number; conditions?: { type: string; status: string }[] };
}

/** kubectl rollout status's test: observed, every replica updated and available, no old ones. */
function rolledOut(d: DeploymentStatus): boolean {
  const st = d.status ?? {};
  return (
    (st.observedGeneration ?? 0) >= d.metadata.generation &&
    (st.updatedReplicas ?? 0) === d.spec.replicas &&
    (st.replicas ?? 0) === d.spec.replicas &&
    (st.availableReplicas ?? 0) === d.spec.replicas
  );
}

const deployment = (name: string, replicas: number): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: (pod('x').spec as Record<string, unknown>) },
  },
});

async function deployments(b: Tracked, s: Server): Promise<void> {
  process.stdout.write(`\nA Deployment of ${REPLICAS} replicas, then a rolling update of it:\n`);
  await namespace(s.client, 'big');
  const path = '/apis/apps/v1/namespaces/big/deployments';
  let t0 = performance.now();
  await s.client.json('POST', path, deployment('big', REPLICAS));
  await until('the rollout', async () => rolledOut(await s.client.json<DeploymentStatus>('GET', `${path}/big`)), 900_000, 500);
  const rollout = REPLICAS / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  await s.client.json('PATCH', `${path}/big`, { spec: { template: { metadata: { annotations: { revision: '2' } } } } }, 'application/strategic-merge-patch+json');
  await until('the rolling update', async () => rolledOut(await s.client.json<DeploymentStatus>('GET', `${path}/big`)), 900_000, 500);
  const update = REPLICAS / ((performance.now() - t0) / 1000);
  b.row(`Deployment of ${REPLICAS} replicas, create to rollout done, pods per second`, rollout, KWOK_PODS_PER_SECOND, 'pods/s', true, { baselineName: 'KWOK, published', goal: { on: 'value', op: '>=', limit: 1000 } });
  b.note(`rolling update of ${REPLICAS} replicas, pods replaced per second`, update, 'pods/s');
  await s.client.request('DELETE', '/api/v1/namespaces/big');
  await until('the big namespace to go', async () => (await s.client.request('GET', '/api/v1/namespaces/big')).status === 404, 600_000, 1000);

  process.stdout.write(`\n${DEPLOYMENTS} single-replica Deployments to Available:\n`);
  await namespace(s.client, 'small');
  t0 = performance.now();
  await createAll(s.client, DEPLOYMENTS, Math.min(CONCURRENCY, DEPLOYMENTS), (i) => ({ path: '/apis/apps/v1/namespaces/small/deployments', body: deployment(`d-${i}`, 1) }));
  await until('every Deployment Available', async () => {
    const list = await s.client.json<{ items: DeploymentStatus[] }>('GET', '/apis/apps/v1/namespaces/small/deployments');
    return list.items.length === DEPLOYMENTS && list.items.every((d) => d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') && (d.status.availableReplicas ?? 0) >= 1);
  }, 300_000, 100);
  const ready = DEPLOYMENTS / ((performance.now() - t0) / 1000);
  b.row(`${DEPLOYMENTS} single-replica Deployments, Ready per second`, ready, KWOK_DEPLOYMENTS_PER_SECOND, 'deployments/s', true, { baselineName: 'KWOK, users report', goal: { on: 'value', op: '>=', limit: 100 } });
}

/** The groups `only` names (both run only on request). */
export async function clusterGroups(bench: ClusterBench, only: ReadonlySet<string> | undefined): Promise<void> {
  // Children and clients are stopped when the groups end, whatever happens.
  const stops: (() => Promise<void> | void)[] = [];
  const b: Tracked = { ...bench, track: (stop) => void stops.push(stop) };
  try {
    if (only?.has('cluster')) {
      b.group('cluster');
      await clusterGroup(b);
    }
    if (only?.has('cluster-hold')) {
      b.group('cluster-hold');
      await clusterHoldGroup(b);
    }
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}

async function clusterGroup(b: Tracked): Promise<void> {
  const s = await clusterServer(b);
  try {
    await podsToRunning(b, s);
    await deployments(b, s);
  } finally {
    await s.stop();
  }
}

const fileMiB = (path: string): number => (existsSync(path) ? statSync(path).size / 2 ** 20 : 0);

const p99 = (v: number[]): number => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(0.99 * s.length))]!;
};

async function clusterHoldGroup(b: Tracked): Promise<void> {
  const s = await clusterServer(b);
  try {
    // The pods spread over namespaces of 1,000, bound to the nodes round the cluster (no scheduling to wait for).
    const perNamespace = 1000;
    const namespaces = Math.ceil(HOLD_PODS / perNamespace);
    // The server with its nodes and no pods: what the pods add is the max below minus this.
    const rssEmpty = b.rssKiB(s.pid) / 1024;
    process.stdout.write(`\nStoring ${HOLD_PODS} pods in ${namespaces} namespaces...\n`);
    for (let n = 0; n < namespaces; n++) await namespace(s.client, `hold-${n}`);
    await createAll(s.client, HOLD_PODS, CONCURRENCY, (i) => ({ path: `/api/v1/namespaces/hold-${Math.floor(i / perNamespace)}/pods`, body: pod(`p-${i}`, `node-${String(i % NODES).padStart(6, '0')}`) }));
    // The hold measures the steady state: every pod through its stages first, not the node
    // agent's backlog of status writes.
    await until('every held pod Running', async () => {
      const r = await s.client.json<{ items: unknown[] }>('GET', '/api/v1/pods?fieldSelector=status.phase!%3DRunning&limit=1');
      return r.items.length === 0;
    }, 900_000, 2000);
    const db = join(s.dataDir, 'storage.db');
    const start = { db: fileMiB(db), wal: fileMiB(`${db}-wal`) };
    process.stdout.write(`Holding for ${HOLD_SECONDS} s...\n`);
    let heartbeats = 0;
    const stopLeases = await s.client.watch('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases?watch=1', (type) => {
      if (type === 'MODIFIED') heartbeats++;
    });
    const stopNodes = await s.client.watch('/api/v1/nodes?watch=1', (type) => {
      if (type === 'MODIFIED') heartbeats++;
    });
    const other = new Lean(s.client.base, join(s.dataDir, 'admin.kubeconfig'), 2);
    b.track(() => other.close());
    const gets: number[] = [];
    const lists: number[] = [];
    const rss: number[] = [];
    const t0 = performance.now();
    const end = t0 + HOLD_SECONDS * 1000;
    let i = 0;
    while (performance.now() < end) {
      const ns = `hold-${i % namespaces}`;
      let t = performance.now();
      await other.request('GET', `/api/v1/namespaces/${ns}/pods/p-${(i % namespaces) * perNamespace}`);
      gets.push(performance.now() - t);
      t = performance.now();
      await other.request('GET', `/api/v1/namespaces/${ns}/pods`);
      lists.push(performance.now() - t);
      rss.push(b.rssKiB(s.pid) / 1024);
      i++;
      await sleep(200);
    }
    const seconds = (performance.now() - t0) / 1000;
    stopLeases();
    stopNodes();
    b.note(`hold ${HOLD_SECONDS} s, ${NODES} nodes, ${HOLD_PODS} pods: server RSS, max`, Math.max(...rss), 'MiB');
    b.note(`hold: server RSS with ${NODES} nodes and no pods`, rssEmpty, 'MiB');
    b.note('hold: server RSS per stored pod (max less the RSS without pods)', ((Math.max(...rss) - rssEmpty) * 1024) / HOLD_PODS, 'KiB');
    b.note('hold: heartbeat writes per second (Leases and Node status)', heartbeats / seconds, 'writes/s');
    b.row('hold: GET of one pod from another client, p99', p99(gets), NaN, 'ms', false, { goal: { on: 'value', op: '<=', limit: 100 } });
    b.row(`hold: LIST of a namespace of ${perNamespace} pods from another client, p99`, p99(lists), NaN, 'ms', false, { goal: { on: 'value', op: '<=', limit: 500 } });
    b.note('hold: SQLite file at start', start.db, 'MiB');
    b.note('hold: SQLite file at end', fileMiB(db), 'MiB');
    b.note('hold: SQLite WAL at start', start.wal, 'MiB');
    b.note('hold: SQLite WAL at end', fileMiB(`${db}-wal`), 'MiB');
  } finally {
    await s.stop();
  }
}
