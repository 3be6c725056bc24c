// The options of `startApiServer`, checked before anything starts, and their translation to
// the server's flags. Plain JavaScript callers can pass anything: every key and value is
// checked, and a bad one fails naming the option.
import type { Clock } from '../apimachinery/clock.js';
import type { Flavor } from '../naming/index.js';
import { STORAGE_BACKEND_NAMES, type StorageBackendName } from '../storage/backends.js';
import { parseRetention } from '../history/retention.js';
import { DEFAULT_SIMULATED_CLUSTER_CIDR } from '../controllers/nodeipam/config.js';

/** The pod CIDRs the node IPAM controller gives nodes: the cluster CIDR (two, comma-separated, for dual stack) and node mask sizes. */
export interface NodeCIDROptions {
  /** `--cluster-cidr` (default 10.128.0.0/9). */
  clusterCIDR?: string;
  /** `--node-cidr-mask-size` (one family only). */
  maskSize?: number;
  /** `--node-cidr-mask-size-ipv4` (24). */
  maskSizeIPv4?: number;
  /** `--node-cidr-mask-size-ipv6` (64). */
  maskSizeIPv6?: number;
}

export type StorageBackend = StorageBackendName;

export interface EtcdOptions {
  /** The members' client URLs (`--etcd-servers`). */
  servers: string[];
  /** Put before every key (`--etcd-prefix`); a fresh one per server when absent, so servers sharing an etcd do not meet. */
  prefix?: string;
  /** PEM files for `https` members (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export interface ApiServerOptions {
  /** `memory` (default): nothing on disk. `sqlite`: a database in `dataDir`. `etcd`: the `etcd` members. */
  storage?: StorageBackend;
  /** `sqlite`: the directory of the database (a fresh one, removed on `stop()`, when absent). */
  dataDir?: string;
  etcd?: EtcdOptions;
  /**
   * The naming flavor: `kubernetes` (default; stock group names such as `rbac.authorization.k8s.io`)
   * or `orch`. The flavor is process-wide: servers of both flavors cannot run at once in one process.
   */
  flavor?: Flavor;
  /** 0 (default) picks a free port. */
  port?: number;
  /** The address to listen on (default `127.0.0.1`). */
  host?: string;
  /** CustomResourceDefinition files or directories of them (YAML or JSON, several documents a file); installed and awaited until Established. */
  crds?: string[];
  /** How long each definition may take to become Established (default 10 000 ms). */
  crdTimeoutMs?: number;
  /** Objects to create once the definitions are established, in order: objects, or files and directories of YAML. */
  objects?: Array<Record<string, unknown> | string>;
  /** kube-controller-manager's `--controllers`: `*`, a name, or `-name` to turn one off. */
  controllers?: string[];
  /** Admission plugins to turn on or off beside the defaults (`--enable-admission-plugins`, `--disable-admission-plugins`). */
  admissionPlugins?: { enable?: string[]; disable?: string[] };
  /** The controllers' clock: pass a `FakeClock` to drive schedules (CronJobs, TTLs) from the test. */
  clock?: Clock;
  /** Share one CA and keys between the servers of this process (`shared`, default, fast) or make new ones (`fresh`). */
  pki?: 'shared' | 'fresh';
  /**
   * Nodes to simulate from the start (`--simulated-nodes`), as KWOK simulates them: Ready, their
   * Leases renewed, pods bound to them taken to Running (a Job's to Succeeded), deletions finished.
   */
  simulatedNodes?: number;
  /**
   * KWOK `Stage`, `Logs` and `ClusterLogs` documents (and at most one v1 `Node` template) for the
   * simulated nodes: objects, or YAML files of them (`--simulated-node-config`).
   */
  simulatedNodeConfig?: Array<Record<string, unknown> | string>;
  /** Further kube-apiserver flags, e.g. `['--runtime-config=batch/v1=false']`. */
  flags?: string[];
  /** Receives the server's log lines (none are printed by default). */
  log?: (line: string) => void;
  /**
   * Run the scheduler in the server (`--scheduler`): pending pods are bound to nodes. Off by
   * default unless `simulatedNodes` is set: a test API server without nodes has nothing to
   * place pods on.
   */
  scheduler?: boolean;
  /**
   * Serve the web console at `/ui/` (`--console`; off by default here). The handle's
   * `consoleUrl` then logs a browser in as the admin user for `--console-token-ttl`.
   */
  console?: boolean;
  /**
   * The object history's retention (`--history-retention`): a duration, a revision count per
   * object or both (`'24h'`, `'100'`, `'24h,100'`); `'0'` turns history off. Default `'1h,50'`.
   */
  historyRetention?: string;
  /**
   * Pod CIDRs for nodes (`--allocate-node-cidrs`, the `nodeipam` controller): `true` or the
   * ranges to use, `false` for none. Default: on (cluster CIDR 10.128.0.0/9, a /24 per node)
   * when `simulatedNodes` is set, so simulated pods take addresses from their node's range.
   */
  nodeCIDRs?: boolean | NodeCIDROptions;
}

const KNOWN: ReadonlySet<string> = new Set([
  'storage',
  'dataDir',
  'etcd',
  'flavor',
  'port',
  'host',
  'crds',
  'crdTimeoutMs',
  'objects',
  'controllers',
  'admissionPlugins',
  'clock',
  'pki',
  'simulatedNodes',
  'simulatedNodeConfig',
  'flags',
  'log',
  'scheduler',
  'console',
  'historyRetention',
  'nodeCIDRs',
]);

export class OptionError extends Error {
  constructor(message: string) {
    super(`startApiServer: ${message}`);
    this.name = 'OptionError';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(name: string, v: unknown): void {
  if (v === undefined) return;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) throw new OptionError(`option "${name}" must be an array of strings`);
}

function oneOf(name: string, v: unknown, allowed: readonly string[]): void {
  if (v !== undefined && !allowed.includes(v as string)) throw new OptionError(`option "${name}" must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, not ${JSON.stringify(v)}`);
}

/** Throws an OptionError naming the first unknown or ill-typed option. */
export function checkOptions(opts: unknown): asserts opts is ApiServerOptions {
  if (opts === undefined) return;
  if (!isRecord(opts)) throw new OptionError('the options must be an object');
  for (const key of Object.keys(opts)) {
    if (!KNOWN.has(key)) throw new OptionError(`unknown option "${key}" (known: ${[...KNOWN].join(', ')})`);
  }
  oneOf('storage', opts.storage, STORAGE_BACKEND_NAMES);
  oneOf('flavor', opts.flavor, ['kubernetes', 'orch']);
  oneOf('pki', opts.pki, ['shared', 'fresh']);
  if (opts.dataDir !== undefined && typeof opts.dataDir !== 'string') throw new OptionError('option "dataDir" must be a string');
  if (opts.host !== undefined && typeof opts.host !== 'string') throw new OptionError('option "host" must be a string');
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && (opts.port as number) >= 0 && (opts.port as number) <= 65535)) {
    throw new OptionError(`option "port" must be a port number (0 picks a free one), not ${JSON.stringify(opts.port)}`);
  }
  if (opts.crdTimeoutMs !== undefined && !(typeof opts.crdTimeoutMs === 'number' && opts.crdTimeoutMs > 0)) {
    throw new OptionError('option "crdTimeoutMs" must be a positive number of milliseconds');
  }
  stringList('crds', opts.crds);
  stringList('controllers', opts.controllers);
  stringList('flags', opts.flags);
  if (opts.objects !== undefined && (!Array.isArray(opts.objects) || opts.objects.some((o) => typeof o !== 'string' && !isRecord(o)))) {
    throw new OptionError('option "objects" must be an array of objects or file paths');
  }
  if (opts.admissionPlugins !== undefined) {
    if (!isRecord(opts.admissionPlugins)) throw new OptionError('option "admissionPlugins" must be an object with "enable" and "disable" lists');
    for (const key of Object.keys(opts.admissionPlugins)) {
      if (key !== 'enable' && key !== 'disable') throw new OptionError(`unknown option "admissionPlugins.${key}" (known: enable, disable)`);
    }
    stringList('admissionPlugins.enable', opts.admissionPlugins.enable);
    stringList('admissionPlugins.disable', opts.admissionPlugins.disable);
  }
  if (opts.clock !== undefined) {
    const c = opts.clock as Partial<Clock> | null;
    if (typeof c?.now !== 'function' || typeof c.schedule !== 'function') throw new OptionError('option "clock" must be a Clock (now() and schedule(ms, fn)), e.g. a FakeClock');
  }
  if (opts.log !== undefined && typeof opts.log !== 'function') throw new OptionError('option "log" must be a function');
  if (opts.scheduler !== undefined && typeof opts.scheduler !== 'boolean') throw new OptionError('option "scheduler" must be a boolean');
  if (opts.console !== undefined && typeof opts.console !== 'boolean') throw new OptionError('option "console" must be a boolean');
  if (opts.nodeCIDRs !== undefined && typeof opts.nodeCIDRs !== 'boolean') {
    if (!isRecord(opts.nodeCIDRs)) throw new OptionError('option "nodeCIDRs" must be a boolean or an object with "clusterCIDR" and mask sizes');
    for (const [key, v] of Object.entries(opts.nodeCIDRs)) {
      if (key === 'clusterCIDR') {
        if (typeof v !== 'string') throw new OptionError('option "nodeCIDRs.clusterCIDR" must be a string');
      } else if (key === 'maskSize' || key === 'maskSizeIPv4' || key === 'maskSizeIPv6') {
        if (!(Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 128)) throw new OptionError(`option "nodeCIDRs.${key}" must be a prefix length from 1 to 128, not ${JSON.stringify(v)}`);
      } else {
        throw new OptionError(`unknown option "nodeCIDRs.${key}" (known: clusterCIDR, maskSize, maskSizeIPv4, maskSizeIPv6)`);
      }
    }
  }
  if (opts.simulatedNodes !== undefined && !(Number.isSafeInteger(opts.simulatedNodes) && (opts.simulatedNodes as number) >= 0 && (opts.simulatedNodes as number) <= 100_000)) {
    throw new OptionError(`option "simulatedNodes" must be a number of nodes from 0 to 100000, not ${JSON.stringify(opts.simulatedNodes)}`);
  }
  if (opts.simulatedNodeConfig !== undefined && (!Array.isArray(opts.simulatedNodeConfig) || opts.simulatedNodeConfig.some((o) => typeof o !== 'string' && !isRecord(o)))) {
    throw new OptionError('option "simulatedNodeConfig" must be an array of objects or file paths');
  }
  if (opts.historyRetention !== undefined) {
    if (typeof opts.historyRetention !== 'string') throw new OptionError('option "historyRetention" must be a string such as "1h,50"');
    try {
      parseRetention(opts.historyRetention);
    } catch (e) {
      throw new OptionError(`option "historyRetention": ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const storage = opts.storage ?? 'memory';
  if (opts.etcd !== undefined) {
    if (storage !== 'etcd') throw new OptionError('option "etcd" needs storage: "etcd"');
    if (!isRecord(opts.etcd)) throw new OptionError('option "etcd" must be an object');
    for (const key of Object.keys(opts.etcd)) {
      if (!['servers', 'prefix', 'caFile', 'certFile', 'keyFile'].includes(key)) throw new OptionError(`unknown option "etcd.${key}" (known: servers, prefix, caFile, certFile, keyFile)`);
    }
    stringList('etcd.servers', opts.etcd.servers);
  }
  if (storage === 'etcd' && (!isRecord(opts.etcd) || !Array.isArray(opts.etcd.servers) || opts.etcd.servers.length === 0)) {
    throw new OptionError('storage "etcd" needs option "etcd.servers"');
  }
  if (opts.dataDir !== undefined && storage !== 'sqlite') throw new OptionError('option "dataDir" is for storage: "sqlite"');
}

/** The flags the options stand for; `dataDir` is where the data directory lives. */
export function optionFlags(opts: ApiServerOptions, dataDir: string, uniqueSuffix: string): string[] {
  const storage = opts.storage ?? 'memory';
  const out = [
    `--data-dir=${dataDir}`,
    `--storage-backend=${storage}`,
    `--secure-port=${opts.port ?? 0}`,
    `--bind-address=${opts.host ?? '127.0.0.1'}`,
    `--compat=${opts.flavor ?? 'kubernetes'}`,
    `--scheduler=${opts.scheduler ?? (opts.simulatedNodes ?? 0) > 0}`,
    `--console=${opts.console ?? false}`,
  ];
  if (storage === 'etcd' && opts.etcd) {
    out.push(`--etcd-servers=${opts.etcd.servers.join(',')}`, `--etcd-prefix=${opts.etcd.prefix ?? `/orch-test-${uniqueSuffix}`}`);
    if (opts.etcd.caFile) out.push(`--etcd-cafile=${opts.etcd.caFile}`);
    if (opts.etcd.certFile) out.push(`--etcd-certfile=${opts.etcd.certFile}`);
    if (opts.etcd.keyFile) out.push(`--etcd-keyfile=${opts.etcd.keyFile}`);
  }
  const enable = opts.admissionPlugins?.enable ?? [];
  const disable = opts.admissionPlugins?.disable ?? [];
  if (enable.length > 0) out.push(`--enable-admission-plugins=${enable.join(',')}`);
  if (disable.length > 0) out.push(`--disable-admission-plugins=${disable.join(',')}`);
  if (opts.controllers) out.push(`--controllers=${opts.controllers.join(',')}`);
  if (opts.simulatedNodes) out.push(`--simulated-nodes=${opts.simulatedNodes}`);
  if (opts.historyRetention !== undefined) out.push(`--history-retention=${opts.historyRetention}`);
  if (opts.nodeCIDRs === false) out.push('--allocate-node-cidrs=false');
  else if (opts.nodeCIDRs !== undefined) {
    const c = opts.nodeCIDRs === true ? {} : opts.nodeCIDRs;
    out.push('--allocate-node-cidrs=true', `--cluster-cidr=${c.clusterCIDR ?? DEFAULT_SIMULATED_CLUSTER_CIDR}`);
    if (c.maskSize !== undefined) out.push(`--node-cidr-mask-size=${c.maskSize}`);
    if (c.maskSizeIPv4 !== undefined) out.push(`--node-cidr-mask-size-ipv4=${c.maskSizeIPv4}`);
    if (c.maskSizeIPv6 !== undefined) out.push(`--node-cidr-mask-size-ipv6=${c.maskSizeIPv6}`);
  }
  return [...out, ...(opts.flags ?? [])];
}
