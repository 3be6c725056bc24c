// Reading and writing kubeconfig files: the entry point writes `admin.kubeconfig`, the HTTPS
// client and the tests read one. Only the parts a client needs to connect are resolved:
// server, CA, client certificate and key, bearer token.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { isPlainObject } from '../apimachinery/types.js';

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
  const user = namedEntries(doc, 'users', 'user').find((u) => u.name === userName)?.body ?? {};

  const config: ClientConfig = { server: server.replace(/\/+$/, ''), namespace: str(context.body, 'namespace') ?? '' };
  const ca = dataOrFile(cluster.body, 'certificate-authority', baseDir);
  if (ca !== undefined) config.caPem = ca;
  if (cluster.body['insecure-skip-tls-verify'] === true) config.insecureSkipTlsVerify = true;
  const serverName = str(cluster.body, 'tls-server-name');
  if (serverName !== undefined) config.tlsServerName = serverName;
  const cert = dataOrFile(user, 'client-certificate', baseDir);
  if (cert !== undefined) config.clientCertPem = cert;
  const key = dataOrFile(user, 'client-key', baseDir);
  if (key !== undefined) config.clientKeyPem = key;
  const token = str(user, 'token') ?? readTokenFile(user, baseDir);
  if (token !== undefined) config.token = token;
  return config;
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
