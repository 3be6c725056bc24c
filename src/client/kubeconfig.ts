// Reading and writing kubeconfig files: the entry point writes `admin.kubeconfig`, the HTTPS
// client and the tests read one. Only the parts a client needs to connect are resolved:
// server, CA, client certificate and key, bearer token, credential plugin. The checks and
// their wording follow kubectl's, so a config that kubectl refuses is refused here too.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { parse, stringify } from 'yaml';
import { isPlainObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';

export type InteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** A user's credential plugin (`users[].user.exec`), checked and with its command resolved. */
export interface ExecConfig {
  /** Absolute when the config gave a path with a separator; otherwise looked up on PATH. */
  command: string;
  args: string[];
  /** Added to the client's own environment. */
  env: Array<{ name: string; value: string }>;
  apiVersion: string;
  installHint?: string;
  provideClusterInfo: boolean;
  interactiveMode: InteractiveMode;
  /** The cluster's `client.authentication.<domain>/exec` extension, passed on as `spec.cluster.config`. */
  clusterConfig?: unknown;
}

/** What a client needs to reach one server as one user (the current context, resolved). */
export interface ClientConfig {
  server: string;
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  insecureSkipTlsVerify?: boolean;
  /** The `tls-server-name` of the cluster entry, when set. */
  tlsServerName?: string;
  /** Default namespace of the context ('' when unset). */
  namespace: string;
  /** Only when the user has neither a token nor a client certificate: those win, as in kubectl. */
  exec?: ExecConfig;
}

/** The plugin protocol versions a client speaks: `client.authentication.<domain>/v1` and `/v1beta1`. */
export function execApiVersions(): string[] {
  const g = group('client.authentication');
  return [`${g}/v1`, `${g}/v1beta1`];
}

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

interface Named {
  name: string;
  body: Record<string, unknown>;
}

function namedEntries(doc: Record<string, unknown>, listKey: string, bodyKey: string): Named[] {
  const list = doc[listKey];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeconfigError(`"${listKey}" must be a list`);
  return list.flatMap((entry: unknown) => {
    if (!isPlainObject(entry) || typeof entry.name !== 'string') return [];
    const body = entry[bodyKey];
    return [{ name: entry.name, body: isPlainObject(body) ? body : {} }];
  });
}

function str(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function decodeBase64(value: string, field: string): string {
  if (!/^[A-Za-z0-9+/=\s]*$/.test(value)) throw new KubeconfigError(`"${field}" is not base64`);
  return Buffer.from(value, 'base64').toString('utf8');
}

/** Inline `<key>-data` (base64) wins over the file `<key>`, resolved against the config's directory. */
function dataOrFile(obj: Record<string, unknown>, key: string, baseDir: string): string | undefined {
  const data = str(obj, `${key}-data`);
  if (data !== undefined) return decodeBase64(data, `${key}-data`);
  const file = str(obj, key);
  if (file === undefined) return undefined;
  return readFileSync(isAbsolute(file) ? file : resolve(baseDir, file), 'utf8');
}

function userOf(doc: Record<string, unknown>, context: Named): Record<string, unknown> {
  const userName = str(context.body, 'user');
  return namedEntries(doc, 'users', 'user').find((u) => u.name === userName)?.body ?? {};
}

/**
 * The `apiVersion` the credential plugin of a kubeconfig's context names, unchecked, or
 * undefined when its user runs none (or the file cannot say). The plugin protocol's group
 * tells which naming flavor the kubeconfig was written for, before any server is asked.
 */
export function execPluginApiVersion(path: string, opts: { context?: string } = {}): string | undefined {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'), { logLevel: 'silent' });
  } catch {
    // An unreadable file is refused with its reason when it is read for real.
    return undefined;
  }
  if (!isPlainObject(doc)) return undefined;
  try {
    const contextName = opts.context ?? str(doc, 'current-context');
    const context = namedEntries(doc, 'contexts', 'context').find((c) => c.name === contextName);
    const exec = context ? userOf(doc, context).exec : undefined;
    return isPlainObject(exec) ? str(exec, 'apiVersion') : undefined;
  } catch (e) {
    if (e instanceof KubeconfigError) return undefined;
    throw e;
  }
}

/**
 * Resolves a kubeconfig document (YAML or JSON text) to the connection settings of a context
 * (`current-context` when `context` is not given). `baseDir` resolves relative file paths.
 */
export function parseKubeconfig(text: string, opts: { context?: string; baseDir?: string } = {}): ClientConfig {
  let doc: unknown;
  try {
    // Never logs: a warning quotes its source line, which may hold a credential.
    doc = parse(text, { logLevel: 'silent' });
  } catch (e) {
    throw new KubeconfigError(`invalid kubeconfig: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isPlainObject(doc)) throw new KubeconfigError('invalid kubeconfig: not a mapping');
  const baseDir = opts.baseDir ?? process.cwd();
  const contextName = opts.context ?? str(doc, 'current-context');
  if (!contextName) throw new KubeconfigError('kubeconfig has no current context');
  const context = namedEntries(doc, 'contexts', 'context').find((c) => c.name === contextName);
  if (!context) throw new KubeconfigError(`context "${contextName}" not found in kubeconfig`);
  const clusterName = str(context.body, 'cluster');
  const cluster = namedEntries(doc, 'clusters', 'cluster').find((c) => c.name === clusterName);
  if (!cluster) throw new KubeconfigError(`cluster "${clusterName ?? ''}" not found in kubeconfig`);
  const server = str(cluster.body, 'server');
  if (!server) throw new KubeconfigError(`cluster "${cluster.name}" has no server`);
  const userName = str(context.body, 'user');
  const user = userOf(doc, context);

  // A proxy would change where the bytes go; silently connecting directly would be worse than refusing.
  if (str(cluster.body, 'proxy-url') !== undefined) {
    throw new KubeconfigError(`cluster "${cluster.name}" sets proxy-url, which this client does not support; remove it or connect without a proxy`);
  }
  const config: ClientConfig = { server: server.replace(/\/+$/, ''), namespace: str(context.body, 'namespace') ?? '' };
  const ca = dataOrFile(cluster.body, 'certificate-authority', baseDir);
  if (ca !== undefined) config.caPem = ca;
  if (cluster.body['insecure-skip-tls-verify'] === true) {
    if (ca !== undefined) throw new KubeconfigError('specifying a root certificates file with the insecure flag is not allowed');
    config.insecureSkipTlsVerify = true;
  }
  const serverName = str(cluster.body, 'tls-server-name');
  if (serverName !== undefined) config.tlsServerName = serverName;
  const cert = dataOrFile(user, 'client-certificate', baseDir);
  if (cert !== undefined) config.clientCertPem = cert;
  const key = dataOrFile(user, 'client-key', baseDir);
  if (key !== undefined) config.clientKeyPem = key;
  if (cert !== undefined && key === undefined) {
    throw new KubeconfigError(`client-key-data or client-key must be specified for ${userName ?? ''} to use the clientCert authentication method.`);
  }
  const token = str(user, 'token') ?? readTokenFile(user, baseDir);
  if (token !== undefined) config.token = token;
  if (user.exec !== undefined && user.exec !== null) {
    const exec = parseExec(user.exec, userName ?? '', baseDir, cluster.body);
    if (config.token === undefined && config.clientCertPem === undefined) config.exec = exec;
  }
  return config;
}

const MODES: readonly string[] = ['Never', 'IfAvailable', 'Always'];

function parseExec(raw: unknown, userName: string, baseDir: string, cluster: Record<string, unknown>): ExecConfig {
  if (!isPlainObject(raw)) throw new KubeconfigError(`"exec" of user "${userName}" must be a mapping`);
  const command = str(raw, 'command');
  if (command === undefined) throw new KubeconfigError(`command must be specified for ${userName} to use exec authentication plugin`);
  const apiVersion = str(raw, 'apiVersion');
  if (apiVersion === undefined) throw new KubeconfigError(`apiVersion must be specified for ${userName} to use exec authentication plugin`);
  const [v1, v1beta1] = execApiVersions();
  if (apiVersion !== v1 && apiVersion !== v1beta1) throw new KubeconfigError(`exec plugin: invalid apiVersion "${apiVersion}"`);
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new KubeconfigError(`"exec.args" of user "${userName}" must be a list of strings`);
  const envList = raw.env ?? [];
  if (!Array.isArray(envList)) throw new KubeconfigError(`"exec.env" of user "${userName}" must be a list`);
  const env = envList.map((e: unknown) => {
    const name = isPlainObject(e) ? str(e, 'name') : undefined;
    if (name === undefined) throw new KubeconfigError(`env variable name must be specified for ${userName} to use exec authentication plugin`);
    const value = isPlainObject(e) && typeof e.value === 'string' ? e.value : '';
    return { name, value };
  });
  // Only v1beta1 has a default; v1 makes the plugin's author say whether it reads standard input.
  const interactiveMode = str(raw, 'interactiveMode') ?? (apiVersion === v1beta1 ? 'IfAvailable' : undefined);
  if (interactiveMode === undefined) throw new KubeconfigError(`interactiveMode must be specified for ${userName} to use exec authentication plugin`);
  if (!MODES.includes(interactiveMode)) throw new KubeconfigError(`invalid interactiveMode for ${userName}: "${interactiveMode}"`);
  const exec: ExecConfig = {
    // A bare name is looked up on PATH; anything with a separator is a path, relative to the config.
    command: command.includes(sep) && !isAbsolute(command) ? resolve(baseDir, command) : command,
    args: args as string[],
    env,
    apiVersion,
    provideClusterInfo: raw.provideClusterInfo === true,
    interactiveMode: interactiveMode as InteractiveMode,
  };
  const hint = str(raw, 'installHint');
  if (hint !== undefined) exec.installHint = hint;
  const extension = namedEntries(cluster, 'extensions', 'extension').find((e) => e.name === `${group('client.authentication')}/exec`);
  if (extension) exec.clusterConfig = extension.body;
  return exec;
}

function readTokenFile(user: Record<string, unknown>, baseDir: string): string | undefined {
  const file = str(user, 'tokenFile');
  if (file === undefined) return undefined;
  return readFileSync(isAbsolute(file) ? file : resolve(baseDir, file), 'utf8').trim();
}

/** Reads a kubeconfig file; relative paths inside it resolve against its directory. */
export function readKubeconfig(path: string, opts: { context?: string } = {}): ClientConfig {
  return parseKubeconfig(readFileSync(path, 'utf8'), { ...opts, baseDir: dirname(resolve(path)) });
}

export interface KubeconfigInput {
  server: string;
  caPem: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  /** User entry name, e.g. the admin's common name. */
  user: string;
  /** Cluster entry name. */
  cluster: string;
  namespace?: string;
}

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/** A self-contained kubeconfig (certificates inline) with one cluster, user and context. */
export function renderKubeconfig(input: KubeconfigInput): string {
  const contextName = `${input.user}@${input.cluster}`;
  const user: Record<string, string> = {};
  if (input.clientCertPem !== undefined) user['client-certificate-data'] = b64(input.clientCertPem);
  if (input.clientKeyPem !== undefined) user['client-key-data'] = b64(input.clientKeyPem);
  if (input.token !== undefined) user.token = input.token;
  const context: Record<string, string> = { cluster: input.cluster, user: input.user };
  if (input.namespace) context.namespace = input.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: input.cluster, cluster: { server: input.server, 'certificate-authority-data': b64(input.caPem) } }],
    users: [{ name: input.user, user }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
    preferences: {},
  }, { logLevel: 'silent' });
}
