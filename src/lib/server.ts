// `startApiServer`: the whole server in the caller's process, for tests. Memory storage, a
// free port, a CA shared by the process's servers, no files unless asked for; the
// definitions and objects the test needs are in place when it resolves.
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../apimachinery/clock.js';
import { parseFlags } from '../apimachinery/flags.js';
import type { GroupVersionResource, KubeObject } from '../apimachinery/types.js';
import { allFlagDefinitions } from '../cli/flags.js';
import { startServer, type RunningServer } from '../cli/server.js';
import { fromKubernetesGroup, type Flavor } from '../naming/index.js';
import type { ResourceTable } from '../rest/index.js';
import { credentials, type Credentials } from './kubeconfig.js';
import { readManifests, type Manifest } from './manifests.js';
import { checkOptions, OptionError, optionFlags, type ApiServerOptions } from './options.js';
import { issueFromCA, sharedPkiDir, tempDir } from './pki.js';
import { installWebhook, type WebhookOptions, type InstalledWebhook } from './webhook.js';
import { BootstrapSnapshots } from './bootstrap-snapshot.js';
import { configFromDocuments, parseConfigText, type ConfigDocument } from '../nodeagent/index.js';


export interface SettleOptions {
  /** Give up after this long (default 10 000 ms) with an error. */
  timeoutMs?: number;
}

export interface ApiServerHandle extends Credentials {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The CA that signed the serving certificate (PEM). */
  ca: string;
  /** A kubeconfig file of the admin user (written on first read, removed by `stop()`). */
  readonly kubeconfigPath: string;
  /** The controllers' clock (the `clock` option, or the wall clock). */
  clock: Clock;
  /** With `console: true`: `https://127.0.0.1:<port>/ui/#token=...`, which logs a browser in as the admin user. */
  consoleUrl?: string;
  /** A client certificate of the server's CA for any user and groups (RBAC tests). */
  clientFor(who: { user: string; groups?: string[] }): Promise<Credentials>;
  /** Serves `handler` over HTTPS from this process and registers it as an admission webhook. */
  installWebhook(opts: WebhookOptions): Promise<InstalledWebhook>;
  /** Resolves once every controller has nothing queued or in flight. */
  settled(opts?: SettleOptions): Promise<void>;
  /** Everything the server logged (kept when no `log` option was given). */
  logs: string[];
  stop(): Promise<void>;
}

// The naming flavor is a process-wide setting of the server's modules, so servers of two
// flavors cannot serve at once; this counts the running ones.
const running = { flavor: undefined as Flavor | undefined, count: 0 };

function claimFlavor(flavor: Flavor): () => void {
  if (running.count > 0 && running.flavor !== flavor) {
    throw new OptionError(
      `option "flavor": a server of flavor "${running.flavor}" is running in this process, and the naming flavor is process-wide; ` +
        `stop it first, or run the "${flavor}" servers in another test file (node --test runs each file in its own process)`,
    );
  }
  running.flavor = flavor;
  running.count++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    running.count--;
  };
}

// A cache of this process's bootstrapped stores: each holds only what a fresh server makes.
const snapshots = new BootstrapSnapshots();

const CLUSTER_NAME: Record<Flavor, string> = { kubernetes: 'kubernetes', orch: 'orch' };

/** The served resource of an object's apiVersion and kind. */
function resourceOf(table: ResourceTable, obj: Record<string, unknown>): { gvr: GroupVersionResource; namespaced: boolean; apiVersion: string } | undefined {
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const slash = apiVersion.indexOf('/');
  const group = fromKubernetesGroup(slash < 0 ? '' : apiVersion.slice(0, slash));
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  for (const store of table.all()) {
    const d = store.definition;
    if (d.group === group && d.version === version && d.kind === kind && !d.resource.includes('/')) {
      return { gvr: { group, version, resource: d.resource }, namespaced: d.namespaced, apiVersion: group ? `${group}/${version}` : version };
    }
  }
  return undefined;
}

function describe(m: Manifest | undefined, obj: Record<string, unknown>): string {
  const meta = obj.metadata as { name?: unknown } | undefined;
  return `${String(obj.kind)} "${String(meta?.name ?? '')}"${m ? ` (${m.file})` : ''}`;
}

async function createObject(srv: RunningServer, obj: Record<string, unknown>, from: Manifest | undefined): Promise<KubeObject> {
  const target = resourceOf(srv.table, obj);
  if (!target) throw new Error(`startApiServer: ${describe(from, obj)}: the server serves no kind ${String(obj.kind)} in ${String(obj.apiVersion)}`);
  const body = { ...obj, apiVersion: target.apiVersion } as KubeObject;
  const ns = target.namespaced ? (body.metadata?.namespace ?? 'default') : '';
  try {
    return await srv.client.create(target.gvr, ns, body);
  } catch (e) {
    throw new Error(`startApiServer: ${describe(from, obj)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** Waits until the definition is Established and each served version is in the table. */
async function awaitEstablished(srv: RunningServer, crd: KubeObject, gvr: GroupVersionResource, timeoutMs: number): Promise<void> {
  const name = crd.metadata?.name ?? '';
  const spec = (crd as { spec?: { group?: string; names?: { plural?: string }; versions?: Array<{ name?: string; served?: boolean }> } }).spec;
  const served = (spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name ?? '');
  const deadline = performance.now() + timeoutMs;
  let conditions: Condition[] = [];
  for (;;) {
    const current = await srv.client.get(gvr, '', name);
    conditions = ((current as { status?: { conditions?: Condition[] } }).status?.conditions ?? []).filter((c) => typeof c === 'object' && c !== null);
    const established = conditions.some((c) => c.type === 'Established' && c.status === 'True');
    if (established && served.every((v) => srv.table.lookup({ group: spec?.group ?? '', version: v }, spec?.names?.plural ?? ''))) return;
    if (performance.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const text = conditions.map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ''})` : ''}`).join('; ');
  throw new Error(`startApiServer: CustomResourceDefinition "${name}" did not become Established within ${timeoutMs} ms; conditions: ${text || 'none'}`);
}

async function installCRDs(srv: RunningServer, manifests: Manifest[], timeoutMs: number): Promise<void> {
  const created: Array<{ crd: KubeObject; gvr: GroupVersionResource }> = [];
  for (const m of manifests) {
    // As envtest, a CRD directory may hold other documents (kustomization files): only definitions count.
    if (m.object.kind !== 'CustomResourceDefinition') continue;
    const target = resourceOf(srv.table, m.object);
    if (!target) throw new Error(`startApiServer: option "crds": ${describe(m, m.object)}: unknown apiVersion ${String(m.object.apiVersion)}`);
    created.push({ crd: await createObject(srv, m.object, m), gvr: target.gvr });
  }
  await Promise.all(created.map((c) => awaitEstablished(srv, c.crd, c.gvr, timeoutMs)));
}

/** Resolves once the server's controllers have had nothing queued or in flight for several turns. */
async function settle(s: RunningServer, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  // Work hands over between controllers through watch events delivered on later
  // turns of the event loop: idle must hold for several turns in a row.
  let quiet = 0;
  while (quiet < 3) {
    // Busy controllers are polled each millisecond, not each turn, so as not to spin.
    await new Promise<void>((r) => (quiet > 0 ? setImmediate(r) : setTimeout(r, 1)));
    quiet = s.controllersIdle() ? quiet + 1 : 0;
    if (quiet === 0 && performance.now() > deadline) throw new Error(`settled: the controllers were still busy after ${timeoutMs} ms`);
  }
}

/** The simulated nodes' documents: objects as given, files read (YAML, several documents); checked before anything starts. */
async function readSimulatedNodeConfig(entries: Array<Record<string, unknown> | string>): Promise<ConfigDocument[]> {
  const docs: ConfigDocument[] = [];
  try {
    for (const [i, entry] of entries.entries()) {
      if (typeof entry !== 'string') {
        docs.push({ source: `option "simulatedNodeConfig" item ${i}`, index: 1, object: entry });
        continue;
      }
      const path = resolve(entry);
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (e) {
        throw new Error(`cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
      }
      docs.push(...parseConfigText(path, text));
    }
    configFromDocuments(docs);
  } catch (e) {
    throw new OptionError(`option "simulatedNodeConfig": ${e instanceof Error ? e.message : String(e)}`);
  }
  return docs;
}

/** Starts a server; see `ApiServerOptions`. */
export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServerHandle> {
  checkOptions(options);
  const flavor: Flavor = options.flavor ?? 'kubernetes';
  const host = options.host ?? '127.0.0.1';
  // Files are read before anything starts, so that a bad path fails fast and leaves nothing behind.
  const crdManifests = await readManifests(options.crds ?? [], 'crds');
  const objectFiles = (options.objects ?? []).filter((o): o is string => typeof o === 'string');
  const fileObjects = new Map<string, Manifest[]>();
  for (const f of objectFiles) fileObjects.set(f, await readManifests([f], 'objects'));
  const simulatedNodeConfig = await readSimulatedNodeConfig(options.simulatedNodeConfig ?? []);

  const release = claimFlavor(flavor);
  let scratch: string | undefined;
  const scratchDir = (): string => (scratch ??= tempDir('orch-server-'));
  let srv: RunningServer | undefined;
  try {
    const pkiDir = options.pki === 'fresh' ? scratchDir() : await sharedPkiDir(flavor, host);
    const dataDir = options.storage === 'sqlite' ? (options.dataDir ?? scratchDir()) : pkiDir;
    const flagList = optionFlags(options, dataDir, randomBytes(6).toString('hex'));
    const flags = parseFlags(flagList, allFlagDefinitions);
    const logs: string[] = [];
    const log = options.log ?? ((line: string) => void logs.push(line));
    // Memory servers with the shared PKI start from the first like server's bootstrap. A
    // clock of the test's own may stamp the bootstrap differently, so such servers make theirs.
    const snapshotKey =
      (options.storage ?? 'memory') === 'memory' && options.pki !== 'fresh' && !options.clock && simulatedNodeConfig.length === 0 ? BootstrapSnapshots.key(flagList, pkiDir) : undefined;
    const memorySnapshot = snapshotKey ? snapshots.get(snapshotKey) : undefined;
    srv = await startServer(flags, { log, pkiDir, writeKubeconfig: false, clock: options.clock, memorySnapshot, simulatedNodeConfig });
    const s = srv;
    await s.started;
    // Taken once the controllers have done their part too (service accounts, root CA
    // ConfigMaps), so that like servers start with nothing left to do; and before the
    // test's own definitions and objects go in.
    if (snapshotKey && !memorySnapshot) {
      const settled = await settle(s, 5_000).then(() => true, () => false);
      const taken = settled ? s.memorySnapshot() : undefined;
      if (taken) snapshots.remember(snapshotKey, taken);
    }
    await installCRDs(s, crdManifests, options.crdTimeoutMs ?? 10_000);
    for (const o of options.objects ?? []) {
      if (typeof o === 'string') {
        for (const m of fileObjects.get(o) ?? []) await createObject(s, m.object, m);
      } else {
        await createObject(s, o, undefined);
      }
    }

    const ca = readFileSync(s.pki.caCert, 'utf8');
    const cluster = CLUSTER_NAME[flavor];
    const admin = credentials({
      server: s.url,
      caPem: ca,
      cluster,
      user: 'admin',
      groups: ['system:masters'],
      certPem: readFileSync(s.pki.adminCert, 'utf8'),
      keyPem: readFileSync(s.pki.adminKey, 'utf8'),
    });
    let kubeconfigPath: string | undefined;
    const webhooks = new Set<InstalledWebhook>();
    let stopping: Promise<void> | undefined;

    const handle: ApiServerHandle = {
      ...admin,
      url: s.url,
      port: s.port,
      ca,
      get kubeconfigPath() {
        if (kubeconfigPath === undefined) {
          const path = join(scratchDir(), 'admin.kubeconfig');
          writeFileSync(path, admin.kubeconfig, { mode: 0o600 });
          kubeconfigPath = path;
        }
        return kubeconfigPath;
      },
      clock: s.clock,
      ...(s.console ? { consoleUrl: s.console.url } : {}),
      logs,
      async clientFor(who) {
        if (typeof who?.user !== 'string' || who.user === '') throw new Error('clientFor: "user" must be a non-empty string');
        const groups = who.groups ?? [];
        const cert = await issueFromCA(s.pki, who.user, { groups });
        return credentials({ server: s.url, caPem: ca, cluster, user: who.user, groups, ...cert });
      },
      async installWebhook(opts) {
        const hook = await installWebhook(s.client, opts, () => issueFromCA(s.pki, 'webhook', { hosts: ['127.0.0.1', 'localhost'] }), ca);
        webhooks.add(hook);
        return hook;
      },
      settled(opts = {}) {
        return settle(s, opts.timeoutMs ?? 10_000);
      },
      stop() {
        return (stopping ??= (async () => {
          try {
            for (const hook of webhooks) await hook.stop().catch(() => {});
            await s.stop();
          } finally {
            release();
            if (scratch) await rm(scratch, { recursive: true, force: true });
          }
        })());
      },
    };
    return handle;
  } catch (e) {
    await srv?.stop().catch(() => {});
    release();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    throw e;
  }
}
