// A server and user as a client configuration, in the two forms client libraries take: the
// kubeconfig YAML (`KubeConfig.loadFromString`) and the plain options of
// @kubernetes/client-node's `KubeConfig.loadFromOptions`, without depending on that package.
import { renderKubeconfig } from '../client/kubeconfig.js';

export interface KubeConfigCluster {
  name: string;
  server: string;
  /** The CA's PEM, base64-encoded (kubeconfig's `certificate-authority-data`). */
  caData: string;
  skipTLSVerify: boolean;
}

export interface KubeConfigUser {
  name: string;
  /** PEM, base64-encoded (`client-certificate-data`, `client-key-data`). */
  certData: string;
  keyData: string;
}

export interface KubeConfigContext {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
}

/** What `KubeConfig.loadFromOptions` of @kubernetes/client-node accepts. */
export interface KubeConfigOptions {
  clusters: KubeConfigCluster[];
  users: KubeConfigUser[];
  contexts: KubeConfigContext[];
  currentContext: string;
}

/** A KubeConfig class such as @kubernetes/client-node's. */
export type KubeConfigClass<T> = new () => T & { loadFromOptions(options: KubeConfigOptions): void };

export interface Credentials {
  user: string;
  groups: string[];
  /** The client certificate and key (PEM). */
  certPem: string;
  keyPem: string;
  /** A kubeconfig file's text for this user (`kc.loadFromString(...)`, or `kubectl`). */
  kubeconfig: string;
  /** The configuration as @kubernetes/client-node's `loadFromOptions` takes it. */
  kubeConfig(): KubeConfigOptions;
  /** A new instance of the given KubeConfig class, loaded: `server.kubeConfig(KubeConfig)`. */
  kubeConfig<T>(cls: KubeConfigClass<T>): T;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export function credentials(input: { server: string; caPem: string; cluster: string; user: string; groups: string[]; certPem: string; keyPem: string }): Credentials {
  const options = (): KubeConfigOptions => {
    const context = `${input.user}@${input.cluster}`;
    return {
      clusters: [{ name: input.cluster, server: input.server, caData: b64(input.caPem), skipTLSVerify: false }],
      users: [{ name: input.user, certData: b64(input.certPem), keyData: b64(input.keyPem) }],
      contexts: [{ name: context, cluster: input.cluster, user: input.user }],
      currentContext: context,
    };
  };
  function kubeConfig(): KubeConfigOptions;
  function kubeConfig<T>(cls: KubeConfigClass<T>): T;
  function kubeConfig<T>(cls?: KubeConfigClass<T>): KubeConfigOptions | T {
    if (!cls) return options();
    const kc = new cls();
    kc.loadFromOptions(options());
    return kc;
  }
  return {
    user: input.user,
    groups: input.groups,
    certPem: input.certPem,
    keyPem: input.keyPem,
    kubeconfig: renderKubeconfig({ server: input.server, caPem: input.caPem, clientCertPem: input.certPem, clientKeyPem: input.keyPem, user: input.user, cluster: input.cluster }),
    kubeConfig,
  };
}
