// Start-up of the whole server from parsed flags: data directory, PKI, storage, resource
// table, auth, admission, controllers, compactor, the HTTPS listener and the kubeconfig;
// and the orderly stop. The command-line entry point and the tests both use it.
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ParsedFlags } from '../apimachinery/flags.js';
import { realClock, type Clock } from '../apimachinery/clock.js';
import type { UserInfo } from '../apimachinery/types.js';
import { buildAdmissionChain } from '../admission/index.js';
import { conversionWebhookTransport } from '../admission/webhook/index.js';
import { buildAuth, forbiddenError, LoginTokens, type AuthModule } from '../auth/index.js';
import type { AuthorizationAttributes } from '../auth/types.js';
import { consoleLoginUrl, findBundleDir, isConsolePath, readAssets, serveConsole, type ConsoleAssets } from '../console/index.js';
import { DEFAULT_RETENTION, HistoryPersistence, HistoryStore, parseRetention, RevisionsStore, revisionSchema, revisionsDefinition, type Retention } from '../history/index.js';
import { renderKubeconfig } from '../client/kubeconfig.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';
import type { ApiClient } from '../client/types.js';
import { ControllerManager, DEFAULT_SIMULATED_CLUSTER_CIDR, discoverFromTable, ensureSystemNamespaces, startControllers, type RunningControllers } from '../controllers/index.js';
import { SCHEDULER_LEASE_NAME, schedulerDescriptor } from '../scheduler/descriptor.js';
import { ensureClusterInfo } from '../controllers/tokens/index.js';
import { binarySerializer } from '../codec/binary.js';
import { storageCodecFromFlags } from '../codec/protobuf/index.js';
import { SerializerSet } from '../codec/serializer.js';
import { group, setFlavor, shortWord, type Flavor } from '../naming/index.js';
import { buildResourceTable, DEFAULT_MAX_OBJECT_SIZE_BYTES, servedDefinitions, serveSubresourceHandler, type DefaultResourceTable } from '../registry/index.js';
import { installPodBinding } from '../registry/binding.js';
import { installConnectSubresources, preferredAddressTypesFromFlags, type KubeletClientConfig } from '../registry/connect/index.js';
import { installPodEviction } from '../registry/eviction.js';
import { CustomResourceRegistrar } from '../registry/customresource/index.js';
import { ensureMasterService, installServiceAllocation, serviceNetworkFromFlags } from '../registry/services/index.js';
import type { ResourceDefinition, ResourceTable, SubresourceHandler, SubresourceHandlerFactory } from '../rest/index.js';
import { openapiHandler } from '../schema/openapi/index.js';
import { ApiServer } from '../server/apiserver.js';
import { ApiServerMetrics } from '../server/metrics.js';
import { PriorityAndFairness, priorityAndFairnessEnabled } from '../flowcontrol/index.js';
import { LoopbackClient } from '../server/loopback.js';
import { installComponentStatuses } from '../server/componentstatus.js';
import { PostStartHook, withGracePeriod } from '../server/health.js';
import { versionInfo } from '../server/version.js';
import { createStorage, isStorageBackendName, listBackends, MemoryStorage, startCompactor, type CacherOptions, type CreateStorageOptions, type MemorySnapshot, type Storage } from '../storage/index.js';
import { prepareDataDir } from './datadir.js';
import { closeEarlyStorage, type EarlyStorage } from './early-start.js';
import { FRONT_PROXY_CLIENT_CN, startPki, type PkiPaths } from './pki.js';
import { Aggregator } from '../aggregator/index.js';
import { frontProxyFromFlags } from '../aggregator/flags.js';
import { controllerManagerFlags, featureGateFromFlags, nodeIpamFromFlags } from './flags.js';
import { auditorFromFlags } from '../audit/index.js';
import { loadSimulatedNodeConfig, NodeAgent, type ConfigDocument } from '../nodeagent/index.js';
import type { SimulatedNodes } from '../rest/index.js';
import { API_RELEASE } from '../server/version.js';

export const PRODUCT_VERSION = '0.1.0';

/** The identity in-process work runs as (bootstrap, controllers, auth lookups). */
const LOOPBACK_USER: UserInfo = { username: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
/** How long shutdown waits for the audit backends to deliver what they buffered. */
const AUDIT_SHUTDOWN_MS = 10_000;

export interface RunningServer {
  server: ApiServer;
  port: number;
  /** `https://host:port` */
  url: string;
  /** Where the admin kubeconfig was written ('' when `writeKubeconfig` is false). */
  kubeconfigPath: string;
  /** The admin kubeconfig itself. */
  kubeconfig: string;
  /** With `--console`: the URL that logs a browser in (its token in the fragment) and when that token expires. */
  console?: { url: string; expiresAt: Date };
  dataDir: string;
  /** The PKI files in use (the data directory's, or the ones `pkiDir` named). */
  pki: PkiPaths;
  /** A privileged in-process client whose writes run admission, as remote clients' do. */
  client: ApiClient;
  /** The served resources (custom resources appear here once their definition is established). */
  table: ResourceTable;
  /** The controllers' clock. */
  clock: Clock;
  /** True when the controllers have started and, with the node agent, have nothing queued or in flight. */
  controllersIdle(): boolean;
  /** The simulated nodes' agent (`--simulated-nodes`, and Nodes annotated as KWOK's). */
  nodeAgent: NodeAgent;
  /** Resolves when the start-up hooks (system namespaces, RBAC policy, controllers) are done. */
  started: Promise<void>;
  /** The memory store's current contents (undefined for other backends). */
  memorySnapshot(): MemorySnapshot | undefined;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: (line: string) => void;
  /**
   * A directory whose `pki/` (the layout `ensurePki` makes) is used instead of the data
   * directory's own: servers started in one process can share one CA and keys.
   */
  pkiDir?: string;
  /** Write `admin.kubeconfig` into the data directory (default true). */
  writeKubeconfig?: boolean;
  /** The controllers' clock (the wall clock when absent). */
  clock?: Clock;
  /** `--storage-backend=memory`: start from these contents (what `memorySnapshot()` of a like server returned). */
  memorySnapshot?: MemorySnapshot;
  /** The store of these flags' data directory, opened while the modules loaded (closed here when not taken). */
  early?: EarlyStorage;
  /** A service-account key generation begun for the data directory `dataDir` before the flags were parsed. */
  serviceAccountKey?: { dataDir: string; key: Promise<KeyObject> };
  /** Simulated nodes' configuration documents beside `--simulated-node-config`'s files (the library's objects). */
  simulatedNodeConfig?: ConfigDocument[];
  /** The console's built files (tests); found beside the program when absent. */
  consoleBundleDir?: string;
}

/** The identity of the written admin kubeconfig's client certificate, which the console login token stands for. */
const ADMIN_USER: UserInfo = { username: 'admin', groups: ['system:masters', 'system:authenticated'] };

/** The credentials for node agents: the flags' files, else the PKI's kubelet client certificate. */
function kubeletClientFromFlags(flags: ParsedFlags, pki: PkiPaths): KubeletClientConfig {
  const preferredAddressTypes = preferredAddressTypesFromFlags(flags);
  if (flags.has('kubelet-client-certificate') !== flags.has('kubelet-client-key')) {
    throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  }
  const read = (flag: string, fallback?: string): Buffer | undefined => {
    const path = flags.string(flag) ?? fallback;
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`--${flag}: cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  const cert = read('kubelet-client-certificate', pki.kubeletClientCert);
  const key = read('kubelet-client-key', pki.kubeletClientKey);
  const ca = read('kubelet-certificate-authority');
  return { preferredAddressTypes, ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

/** The storage backend and its settings from the flags. */
function storageOptions(flags: ParsedFlags, dataDir: string): CreateStorageOptions {
  const backend = flags.string('storage-backend') ?? 'sqlite';
  if (!isStorageBackendName(backend)) throw new Error(`--storage-backend: must be ${listBackends()}, not "${backend}"`);
  if (backend !== 'etcd') return { backend, dataDir };
  const file = (name: string): Uint8Array | undefined => {
    const path = flags.string(name);
    return path ? readFileSync(path) : undefined;
  };
  const ca = file('etcd-cafile');
  const cert = file('etcd-certfile');
  const key = file('etcd-keyfile');
  return {
    backend,
    etcdServers: flags.list('etcd-servers'),
    etcdPrefix: flags.string('etcd-prefix') ?? '',
    ...(ca ? { etcdTls: { ca, ...(cert ? { cert } : {}), ...(key ? { key } : {}) } } : {}),
  };
}

export async function startServer(flags: ParsedFlags, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const compat = flags.string('compat') ?? 'orch';
  if (compat !== 'orch' && compat !== 'kubernetes') throw new Error(`--compat: must be orch or kubernetes, not "${compat}"`);
  setFlavor(compat as Flavor);

  // Bad controller flags (an unknown --controllers name) and feature gates refuse the start before anything is done.
  const controllerSettings = controllerManagerFlags(flags);
  const features = featureGateFromFlags(flags, log);
  // The audit policy and backends: a bad flag or file refuses the start here too.
  const auditor = auditorFromFlags(flags, { log, clock: opts.clock ?? realClock });
  // The simulated nodes' count and configuration: a bad value or file refuses the start too.
  const simulatedNodes = flags.number('simulated-nodes') ?? 0;
  if (!Number.isSafeInteger(simulatedNodes) || simulatedNodes < 0 || simulatedNodes > 100_000) {
    throw new Error(`--simulated-nodes: must be a number of nodes from 0 to 100000, not ${simulatedNodes}`);
  }
  // Simulated nodes get pod CIDRs unless told otherwise, so their pods' addresses come from their own ranges.
  const nodeIpam = nodeIpamFromFlags(flags, { allocate: simulatedNodes > 0, clusterCIDR: DEFAULT_SIMULATED_CLUSTER_CIDR });
  const simulatedNodeConfig = await loadSimulatedNodeConfig(flags.list('simulated-node-config'), opts.simulatedNodeConfig ?? []).catch((err: unknown) => {
    throw new Error(`--simulated-node-config: ${err instanceof Error ? err.message : String(err)}`);
  });
  // The console's bundle is read now: a server asked to serve it without it refuses to start.
  const consoleOn = flags.boolean('console') ?? true;
  const consoleTtl = flags.number('console-token-ttl') ?? 900_000;
  if (consoleOn && !(Number.isFinite(consoleTtl) && consoleTtl > 0)) throw new Error(`--console-token-ttl: must be a positive duration, not ${consoleTtl}ms`);
  let consoleAssets: ConsoleAssets | undefined;
  if (consoleOn) {
    const dir = opts.consoleBundleDir ?? findBundleDir();
    if (!dir) throw new Error('--console: the console is not built (npm run build writes it to dist/console-app); start with --console=false to run without it');
    try {
      consoleAssets = readAssets(dir);
    } catch (e) {
      throw new Error(`--console: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  // The object history's retention: a bad value refuses the start too.
  let historyRetention: Retention | undefined;
  try {
    historyRetention = parseRetention(flags.string('history-retention') ?? DEFAULT_RETENTION);
  } catch (e) {
    throw new Error(`--history-retention: ${e instanceof Error ? e.message : String(e)}`);
  }
  const history = historyRetention ? new HistoryStore({ retention: historyRetention, now: () => (opts.clock ?? realClock).now().getTime() }) : undefined;
  const dataDir = resolve(flags.string('data-dir') ?? './.orch');
  const backend = flags.string('storage-backend') ?? 'sqlite';
  const writeKubeconfig = opts.writeKubeconfig ?? true;
  // A memory server with PKI from elsewhere and no kubeconfig file keeps nothing on disk.
  if (backend !== 'memory' || !opts.pkiDir || writeKubeconfig) await prepareDataDir(dataDir, compat as Flavor);
  const bindAddress = flags.string('bind-address') ?? '127.0.0.1';
  // The PKI is made (or checked) while the store opens; its files are read only after both.
  const pkiDir = opts.pkiDir ?? dataDir;
  const pkiWork = startPki(pkiDir, bindAddress, opts.serviceAccountKey?.dataDir === pkiDir ? opts.serviceAccountKey.key : undefined);
  const pki = pkiWork.paths;
  // Read by the controller manager's context.
  const clock: Clock = opts.clock ?? realClock;
  if (flags.has('tls-cert-file') !== flags.has('tls-private-key-file')) {
    throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const certFile = flags.string('tls-cert-file') ?? pki.servingCert;
  const keyFile = flags.string('tls-private-key-file') ?? pki.servingKey;
  const clientCaFile = flags.string('client-ca-file') ?? pki.caCert;

  const definitions = builtinResourceDefinitions({
    runtimeConfig: flags.string('runtime-config') ?? '',
    customResourceValidationExpressions: features.enabled('CustomResourceValidationExpressions'),
  });
  // Refused before storage opens: kube-apiserver would start and then refuse every request as not ready.
  if (features.enabled('ValidatingAdmissionPolicy') && !flags.list('disable-admission-plugins').includes('ValidatingAdmissionPolicy')) {
    const served = (resource: string): boolean => definitions.some((d) => d.group === group('admissionregistration') && d.version === 'v1alpha1' && d.resource === resource);
    if (!served('validatingadmissionpolicies') || !served('validatingadmissionpolicybindings')) {
      throw new Error(`--feature-gates=ValidatingAdmissionPolicy=true needs --runtime-config=${group('admissionregistration')}/v1alpha1=true (the policies and bindings are not served)`);
    }
  }
  const storageOpts: CreateStorageOptions = { ...storageOptions(flags, dataDir), ...(opts.memorySnapshot ? { memorySnapshot: opts.memorySnapshot } : {}) };
  const early = opts.early?.dataDir === dataDir && storageOpts.backend === 'sqlite' ? opts.early : undefined;
  if (opts.early !== undefined && early === undefined) await closeEarlyStorage(opts.early);
  const earlyStorage = await early?.storage;
  const storage: Storage = earlyStorage ?? (await createStorage(storageOpts));
  await pkiWork.certificates;
  // The object history is kept in the store too (off the request path, in batches), and read back here.
  const historyPersistence = history ? new HistoryPersistence(storage, history, { onError: (err) => log(`object history: ${err instanceof Error ? err.message : String(err)}`) }) : undefined;
  await historyPersistence?.load();
  const windowMs = flags.number('watch-history-window') ?? 300_000;
  const storageCodec = storageCodecFromFlags(flags);
  const maxObjectSizeBytes = flags.number('max-object-size-bytes') ?? DEFAULT_MAX_OBJECT_SIZE_BYTES;
  if (!Number.isSafeInteger(maxObjectSizeBytes) || maxObjectSizeBytes <= 0) {
    throw new Error(`--max-object-size-bytes: must be a positive number of bytes, not ${maxObjectSizeBytes}`);
  }
  // The watch caches fill with one read of their prefix from an embedded store: pages would
  // hold the start-up hooks' reads behind every page. An etcd cluster may be shared and large,
  // so it is read in pages, as Kubernetes' reflectors read it.
  const cacherOptions: CacherOptions = { historyWindowMs: windowMs, ...(storageOpts.backend === 'etcd' ? {} : { listPageSize: 0 }) };
  // The built-in resources' caches fill from the early read of the whole store, if there was one.
  const table: DefaultResourceTable = buildResourceTable(definitions, storage, {
    cacherOptions: earlyStorage !== undefined && early !== undefined ? { ...cacherOptions, initialList: early.contents } : cacherOptions,
    codec: storageCodec,
    maxObjectSizeBytes,
  });
  // Services allocate cluster IPs and node ports; pods bind to nodes (pods/binding, bindings).
  const serviceNetwork = serviceNetworkFromFlags(flags);
  installServiceAllocation(table, { storage, network: serviceNetwork });
  installPodBinding(table, definitions, { storage, codec: storageCodec });
  // Proxy, log, exec, attach and port-forward reach pods, services and node agents; the
  // simulated nodes answer for their pods here.
  const simulated: SimulatedNodes = {
    isSimulated: (name) => agent.isSimulated(name),
    serveLog: (req, response, signal) => agent.serveLog(req, response, signal),
  };
  installConnectSubresources(table, { kubelet: kubeletClientFromFlags(flags, pki), simulatedNodes: simulated });
  // The binary media type of the flavor, after JSON and YAML in negotiation order.
  const serializers = new SerializerSet();
  serializers.register(binarySerializer());
  // Admission plugins look objects up with a plain client; controllers write through one
  // that runs admission, as remote clients' writes do.
  const client = new LoopbackClient(table, LOOPBACK_USER, { history });
  const admission = buildAdmissionChain(flags, { client, resources: table, features, clock, log });
  const controllerClient = new LoopbackClient(table, LOOPBACK_USER, { admission, history });
  // pods/eviction takes disruptions from budgets through the loopback client, as kube-apiserver does.
  installPodEviction(table, { client: controllerClient, features });
  // The cluster half in this process (controllers, scheduler, node agent) shares one set of
  // informers: each resource is listed, watched and held once (started with the controllers).
  const clusterInformers = new SharedInformerFactory(controllerClient, {
    resyncMs: 5 * 60_000,
    dropManagedFields: true,
    onError: (err) => log(`informers: ${err instanceof Error ? err.message : String(err)}`),
  });
  // The node agent of simulated nodes works through the same client as the controllers.
  const agent = new NodeAgent({
    client: controllerClient,
    informers: clusterInformers,
    clock,
    config: simulatedNodeConfig,
    nodes: simulatedNodes,
    kubeletVersion: `v${API_RELEASE.major}.${API_RELEASE.minor}.${API_RELEASE.patch}`,
    onError: (err) => log(`node agent: ${err instanceof Error ? err.message : String(err)}`),
  });
  // Custom resources follow their definitions in the table; the existing ones are served
  // before the server reports ready.
  const conversionTransport = conversionWebhookTransport({ client });
  const customResources = new CustomResourceRegistrar({
    client,
    conversionTransport,
    table,
    storage,
    cacherOptions,
    codec: storageCodec,
    maxObjectSizeBytes,
    celValidation: features.enabled('CustomResourceValidationExpressions'),
    onError: (err) => log(`custom resources: ${err instanceof Error ? err.message : String(err)}`),
  });

  const port = flags.number('secure-port') ?? 6443;
  const hostForClients = bindAddress === '0.0.0.0' || bindAddress === '::' ? '127.0.0.1' : bindAddress;
  // The external address is known before listening unless the port is picked by the system.
  let externalAddress = `https://${hostForClients.includes(':') ? `[${hostForClients}]` : hostForClients}:${port}`;

  const loginTokens = consoleAssets ? new LoginTokens(clock) : undefined;
  await pkiWork.serviceAccountKey;
  const auth: AuthModule = await buildAuth(flags, {
    client,
    table,
    // The Node authorizer reads the cluster half's pods informer (started by auth before ready).
    ...(flags.list('authorization-mode').includes('Node') ? { pods: clusterInformers.informerFor({ group: '', version: 'v1', resource: 'pods' }) } : {}),
    ...(loginTokens ? { loginTokens } : {}),
    pki: { clientCaFile, serviceAccountKeyFile: pki.serviceAccountKey, servingCertFile: certFile },
    get externalAddress() {
      return externalAddress;
    },
  });
  // The review APIs are served where the 1.27 surface and --runtime-config serve them (a
  // version the flag leaves off, as SelfSubjectReview v1alpha1 and v1beta1 are by default, is
  // not); SelfSubjectReview also needs the APISelfSubjectReview gate, as in kube-apiserver.
  const enabled = new Set(definitions.map((d) => `${d.group}/${d.version}/${d.resource}`));
  for (const store of auth.stores) {
    const d = store.definition;
    if (!enabled.has(`${d.group}/${d.version}/${d.resource}`)) continue;
    if (d.group === group('authentication') && d.resource === 'selfsubjectreviews' && !features.enabled('APISelfSubjectReview')) continue;
    table.add(store);
  }
  // The object history: each revision shown only to who may get its object.
  if (history) {
    table.add(
      new RevisionsStore(revisionsDefinition(), history, async (user, target) => {
        const attrs: AuthorizationAttributes = { user, verb: 'get', isResourceRequest: true, path: '', apiGroup: target.group, apiVersion: '*', resource: target.resource, subresource: '', namespace: target.namespace, name: target.name };
        const result = await auth.authorizer.authorize(attrs);
        return result.decision === 'Allow' ? undefined : forbiddenError(attrs, result.reason);
      }),
    );
  }
  for (const [handler, build] of Object.entries(auth.subresources) as [SubresourceHandler, SubresourceHandlerFactory][]) serveSubresourceHandler(table, handler, build);

  // The aggregation layer: APIServices for what is served here, remote ones proxied.
  const aggregator = new Aggregator({
    client: controllerClient,
    table,
    frontProxy: frontProxyFromFlags(flags, {
      clientCert: pki.frontProxyClientCert,
      clientKey: pki.frontProxyClientKey,
      ca: pki.frontProxyCaCert,
      clientCA: readFileSync(clientCaFile, 'utf8'),
      clientCommonName: FRONT_PROXY_CLIENT_CN,
    }),
    clock,
    requestTimeoutMs: flags.number('request-timeout') ?? 60_000,
    log,
  });

  // API priority and fairness replaces the in-flight limits when the flag and the gate are on.
  const metrics = new ApiServerMetrics();
  const apf = priorityAndFairnessEnabled(flags, features)
    ? new PriorityAndFairness({
        maxRequestsInFlight: flags.number('max-requests-inflight') ?? 400,
        maxMutatingRequestsInFlight: flags.number('max-mutating-requests-inflight') ?? 200,
        requestTimeoutMs: flags.number('request-timeout') ?? 60_000,
        clock,
        registry: metrics.registry,
        log,
      })
    : undefined;

  const server = new ApiServer({
    metrics,
    ...(apf ? { flowControl: apf.controller } : {}),
    table,
    authenticator: auth.authenticator,
    authorizer: auth.authorizer,
    impersonate: (headers, user) => auth.impersonate(headers, user),
    admission,
    history,
    auditor,
    serializers,
    nonResource: async (method, path, query) => apf?.debug(method, path, query) ?? auth.nonResource(method, path),
    openapi: openapiHandler(() => withHistorySchema(servedDefinitions(table)), { remote: () => aggregator.openApiDocuments() }),
    version: versionInfo(PRODUCT_VERSION),
    tls: { cert: readFileSync(certFile), key: readFileSync(keyFile), clientCA: readFileSync(clientCaFile) },
    maxRequestsInFlight: flags.number('max-requests-inflight'),
    maxMutatingRequestsInFlight: flags.number('max-mutating-requests-inflight'),
    minRequestTimeoutSeconds: flags.number('min-request-timeout'),
    requestTimeoutMs: flags.number('request-timeout'),
    shutdownDelayMs: flags.number('shutdown-delay-duration'),
    http2MaxStreamsPerConnection: flags.number('http2-max-streams-per-connection'),
    aggregation: { discovery: aggregator, serve: (scope) => aggregator.serve(scope) },
    ...(consoleAssets ? { staticFiles: { owns: isConsolePath, serve: (req, res) => serveConsole(consoleAssets, req, res) } } : {}),
    log,
    features,
  });
  server.metrics.recordFeatures(features.all());

  // Health: storage, and one check per start-up hook (trusted by /livez during the grace period).
  const startedAt = Date.now();
  const grace = flags.number('livez-grace-period') ?? 0;
  server.health.add(['livez', 'readyz', 'healthz'], {
    name: 'storage',
    check: async () => {
      await storage.revision();
    },
  });
  const hooks = ['bootstrap-namespaces', 'rbac-bootstrap', 'start-controllers'].map((n) => new PostStartHook(n));
  // kube-apiserver's hooks of the aggregation layer: the ConfigMap extension servers read, and autoregistration.
  const aggregatorHooks = ['start-cluster-authentication-info-controller', 'apiservice-registration-controller'].map((n) => new PostStartHook(n));
  // kube-apiserver's hooks: the bootstrap configuration written, and read back by the filter.
  const apfHooks = apf ? ['priority-and-fairness-config-producer', 'priority-and-fairness-config-consumer'].map((n) => new PostStartHook(n)) : [];
  for (const h of [...hooks, ...apfHooks, ...aggregatorHooks]) {
    server.health.add(['readyz', 'healthz'], h);
    server.health.add(['livez'], withGracePeriod(h, () => startedAt + grace));
  }

  let controllers: RunningControllers | undefined;
  let scheduler: ControllerManager | undefined;
  installComponentStatuses(table, definitions, [
    {
      name: 'controller-manager',
      check: async () => {
        if (!controllers) throw new Error('the controllers have not started');
        return 'ok';
      },
    },
    {
      name: 'storage-0',
      check: async () => {
        await storage.revision();
        return '{"health":"true","reason":""}';
      },
    },
  ]);

  const bound = await server.listen(port, bindAddress);
  externalAddress = `https://${hostForClients.includes(':') ? `[${hostForClients}]` : hostForClients}:${bound}`;

  const kubeconfig = renderKubeconfig({
    server: externalAddress,
    caPem: readFileSync(pki.caCert, 'utf8'),
    clientCertPem: readFileSync(pki.adminCert, 'utf8'),
    clientKeyPem: readFileSync(pki.adminKey, 'utf8'),
    user: 'admin',
    cluster: shortWord() === 'kube' ? 'kubernetes' : 'orch',
  });
  const kubeconfigPath = writeKubeconfig ? join(dataDir, 'admin.kubeconfig') : '';
  if (writeKubeconfig) await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 });
  // The login token is never logged: it goes to the caller, who prints the URL for the user.
  const login = loginTokens?.mint(ADMIN_USER, consoleTtl);

  const compactor = startCompactor(storage, {
    intervalMs: flags.number('etcd-compaction-interval') ?? 60_000,
    windowMs,
    onError: (err) => log(`compaction failed: ${err instanceof Error ? err.message : String(err)}`),
  });

  // Objects no one writes any more (deleted ones) lose their old revisions here; the compactor never touches history.
  const historyPruner = history ? setInterval(() => history.prune(), 60_000).unref() : undefined;

  const apfStarted = (async () => {
    if (!apf) return;
    const [producer, consumer] = apfHooks as [PostStartHook, PostStartHook];
    try {
      await apf.ensureConfiguration(controllerClient);
      producer.complete();
      await apf.follow(controllerClient);
      consumer.complete();
    } catch (err) {
      for (const h of apfHooks) h.fail(err);
      log(`priority and fairness start-up failed: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  })();
  apfStarted.catch(() => {});
  const started = (async () => {
    const [namespaces, rbac, ctrl] = hooks as [PostStartHook, PostStartHook, PostStartHook];
    try {
      // The hooks below write into the system namespaces; nothing else waits for another hook.
      await Promise.all([customResources.start(), ensureSystemNamespaces(controllerClient)]);
      const bootstrap = (async () => {
        await Promise.all([
          ensureMasterService(table, { network: serviceNetwork, address: hostForClients, securePort: bound }),
          // What kubeadm publishes for joining nodes; the bootstrap signer signs it.
          ensureClusterInfo(controllerClient, externalAddress, readFileSync(pki.caCert, 'utf8')),
        ]);
        namespaces.complete();
      })();
      const [authInfo, registration] = aggregatorHooks as [PostStartHook, PostStartHook];
      const aggregation = (async () => {
        await aggregator.publishAuthenticationInfo();
        authInfo.complete();
        await aggregator.start();
        registration.complete();
      })();
      await Promise.all([bootstrap, aggregation, auth.start().then(() => rbac.complete())]);
      controllers = startControllers({
        client: controllerClient,
        informers: clusterInformers,
        table,
        serviceAccounts: true,
        rootCAFile: pki.caCert,
        systemPriorityClasses: true,
        controllers: controllerSettings.controllers,
        ...(nodeIpam ? { nodeIpam } : {}),
        // The signer uses the cluster CA unless its own key pair is given, as kube-controller-manager set up by kubeadm.
        options: { clusterSigningCertFile: pki.caCert, clusterSigningKeyFile: pki.caKey, ...controllerSettings.options },
        // Only an etcd store can be shared by several servers; sqlite's lock and memory already
        // make this server the only one, and a lease left by a killed process would hold the
        // controllers back for its whole duration.
        clock,
        features,
        leaderElection: storageOpts.backend === 'etcd' ? controllerSettings.leaderElection : false,
        log: (line) => log(`controller-manager: ${line}`),
        onError: (name, err) => log(`controller ${name}: ${err instanceof Error ? err.message : String(err)}`),
      });
      if (flags.boolean('scheduler') !== false) {
        // kube-scheduler's own component: where servers share a store, its own Lease; the informers of this process.
        scheduler = new ControllerManager({
          client: controllerClient,
          informers: clusterInformers,
          descriptors: [schedulerDescriptor()],
          controllers: ['*'],
          clock,
          discover: async () => discoverFromTable(table),
          onResourcesChanged: (listener) => table.onChange(listener),
          leaderElection: storageOpts.backend === 'etcd' && controllerSettings.leaderElection !== false ? { ...controllerSettings.leaderElection, name: SCHEDULER_LEASE_NAME } : false,
          log: (line) => log(`scheduler: ${line}`),
          onError: (_name, err) => log(`scheduler: ${err instanceof Error ? err.message : String(err)}`),
        });
        scheduler.start();
      }
      // Whichever component holds a Lease or not, what they asked for is followed from now on.
      clusterInformers.start();
      // The simulated nodes exist once the server is ready.
      await agent.start();
      ctrl.complete();
    } catch (err) {
      for (const h of [...hooks, ...aggregatorHooks]) h.fail(err);
      log(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    await apfStarted;
  })();
  started.catch(() => {});

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await server.shutdown();
      // Buffered audit events are delivered, within bounds: a webhook that is down does not hold the exit.
      if (auditor) await Promise.race([auditor.shutdown(), new Promise((r) => setTimeout(r, AUDIT_SHUTDOWN_MS).unref())]);
      await started.catch(() => {});
      await scheduler?.stop();
      await agent.stop();
      await controllers?.stop();
      await clusterInformers.stop();
      await aggregator.stop();
      await apfStarted.catch(() => {});
      await apf?.stop();
      await auth.stop();
      await admission.stop();
      compactor.stop();
      if (historyPruner) clearInterval(historyPruner);
      await customResources.stop();
      conversionTransport.close();
      // The history's last batch is written while the store's watches still run: their
      // cancellation can trip the etcd client's circuit breaker for the calls after it.
      await historyPersistence?.stop();
      await table.stop();
      await storage.close();
    })());

  return {
    server,
    port: bound,
    url: externalAddress,
    kubeconfigPath,
    kubeconfig,
    ...(login ? { console: { url: consoleLoginUrl(externalAddress, login.token), expiresAt: login.expiresAt } } : {}),
    dataDir,
    pki,
    client: controllerClient,
    table,
    clock,
    controllersIdle: () => controllers !== undefined && (controllers.idle?.() ?? true) && (scheduler?.idle() ?? true) && agent.idle(),
    nodeAgent: agent,
    started,
    memorySnapshot: () => (storage instanceof MemoryStorage ? storage.snapshot() : undefined),
    stop,
  };
}

/** The revisions' schema for OpenAPI, published as a custom resource's is (the kind is outside the catalog). */
function withHistorySchema(definitions: ResourceDefinition[]): ResourceDefinition[] {
  return definitions.map((d) => (d.handler === 'Revisions' ? { ...d, customResource: { crdName: '', crdUID: '', schema: revisionSchema() } } : d));
}
