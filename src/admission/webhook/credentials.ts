// How this server authenticates to webhooks: the `kubeConfigFile` of a
// WebhookAdmissionConfiguration, whose `users` are named after the servers they are for
// (`host:port`, `host`, `*.domain`, `*`), with the current context's user as the fallback.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import { isPlainObject } from '../../apimachinery/types.js';

export interface WebhookCredentials {
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
}

/** Finds the credentials for a `host:port` target; undefined means anonymous. */
export type CredentialsResolver = (hostPort: string) => WebhookCredentials | undefined;

export class WebhookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigError';
  }
}

const str = (o: Record<string, unknown>, k: string): string | undefined => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);

function dataOrFile(o: Record<string, unknown>, key: string, dataKey: string, baseDir: string): string | undefined {
  const data = str(o, dataKey);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = str(o, key);
  return file === undefined ? undefined : readFileSync(isAbsolute(file) ? file : resolve(baseDir, file), 'utf8');
}

function credentialsOf(user: Record<string, unknown>, baseDir: string): WebhookCredentials {
  const out: WebhookCredentials = {};
  const cert = dataOrFile(user, 'client-certificate', 'client-certificate-data', baseDir);
  const key = dataOrFile(user, 'client-key', 'client-key-data', baseDir);
  if (cert) out.clientCertPem = cert;
  if (key) out.clientKeyPem = key;
  const token = str(user, 'token') ?? (str(user, 'tokenFile') ? readFileSync(resolve(baseDir, str(user, 'tokenFile')!), 'utf8').trim() : undefined);
  if (token) out.token = token;
  return out;
}

function splitHostPort(target: string): [string, string] | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
  return m ? [m[1]!, m[2]!] : undefined;
}

/** Resolution over a parsed kubeconfig document. Pure apart from reading referenced files. */
export function credentialsFromKubeconfig(text: string, baseDir: string): CredentialsResolver {
  let doc: unknown;
  try {
    // Never logs: a warning quotes its source line, which may hold a credential.
    doc = parse(text, { logLevel: 'silent' });
  } catch (err) {
    throw new WebhookConfigError(`unable to read the webhook kubeconfig: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!isPlainObject(doc)) throw new WebhookConfigError('unable to read the webhook kubeconfig: not a mapping');
  const users = new Map<string, WebhookCredentials>();
  for (const entry of Array.isArray(doc.users) ? doc.users : []) {
    if (isPlainObject(entry) && typeof entry.name === 'string') users.set(entry.name, credentialsOf(isPlainObject(entry.user) ? entry.user : {}, baseDir));
  }
  let currentUser: string | undefined;
  const current = str(doc, 'current-context');
  for (const entry of Array.isArray(doc.contexts) ? doc.contexts : []) {
    if (isPlainObject(entry) && entry.name === current && isPlainObject(entry.context)) currentUser = str(entry.context, 'user');
  }
  const exactOrWildcard = (target: string): WebhookCredentials | undefined => {
    const exact = users.get(target);
    if (exact) return exact;
    const steps = target.split('.');
    for (let i = 1; i < steps.length; i++) {
      const found = users.get(`*.${steps.slice(i).join('.')}`);
      if (found) return found;
    }
    return undefined;
  };
  return (hostPort) => {
    const found = exactOrWildcard(hostPort);
    if (found) return found;
    // The default port may be left out of the user's name.
    const split = splitHostPort(hostPort);
    if (split && split[1] === '443') {
      const withoutPort = exactOrWildcard(split[0]);
      if (withoutPort) return withoutPort;
    }
    return users.get('*') ?? (currentUser ? users.get(currentUser) : undefined);
  };
}

/**
 * Reads a plugin's WebhookAdmissionConfiguration (`kubeConfigFile`, an absolute path);
 * undefined when it names none.
 */
export function credentialsFromPluginConfig(config: Record<string, unknown> | undefined): CredentialsResolver | undefined {
  const file = config ? str(config, 'kubeConfigFile') : undefined;
  if (!file) return undefined;
  if (!isAbsolute(file)) throw new WebhookConfigError(`kubeConfigFile ${JSON.stringify(file)} must be an absolute file path`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new WebhookConfigError(`unable to read kubeConfigFile ${JSON.stringify(file)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return credentialsFromKubeconfig(text, dirname(file));
}
