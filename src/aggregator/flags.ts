// The aggregation layer's flags, named as kube-apiserver names them, and the front-proxy
// configuration they give.
import { readFileSync } from 'node:fs';
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import type { FrontProxyConfig } from './front-proxy.js';

export const aggregatorFlagDefinitions: FlagDefinition[] = [
  { name: 'proxy-client-cert-file', type: 'string', usage: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request (proxying to aggregated API servers). Defaults to the front-proxy client certificate of the data directory.' },
  { name: 'proxy-client-key-file', type: 'string', usage: 'Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request.' },
  {
    name: 'enable-aggregator-routing',
    type: 'boolean',
    default: true,
    usage: 'Route requests for aggregated API servers to endpoint IPs rather than the cluster IP. This server runs no service proxy, so endpoint routing is the only one it has; false is refused.',
  },
];

export interface FrontProxyFiles {
  /** The front-proxy client certificate and key made in the data directory. */
  clientCert: string;
  clientKey: string;
  /** The CA that signed them. */
  ca: string;
  /** The CA of ordinary client certificates (`--client-ca-file` or the data directory's). */
  clientCA: string;
  /** The CommonName of the data directory's front-proxy client certificate. */
  clientCommonName: string;
}

function read(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`--${flag}: cannot read ${JSON.stringify(path)}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The front-proxy configuration from the flags: the given client certificate, or the data
 * directory's (then its CA and CommonName are what the ConfigMap publishes unless the
 * requestheader flags say otherwise, as kubeadm sets them up). Throws naming the flag.
 */
export function frontProxyFromFlags(flags: ParsedFlags, files: FrontProxyFiles): FrontProxyConfig {
  if (flags.has('enable-aggregator-routing') && flags.boolean('enable-aggregator-routing') === false) {
    throw new Error('--enable-aggregator-routing: false routes to cluster IPs, which needs a service proxy this server does not run; only true is supported');
  }
  if (flags.has('proxy-client-cert-file') !== flags.has('proxy-client-key-file')) {
    throw new Error('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  const ownCert = flags.has('proxy-client-cert-file');
  const clientCert = ownCert ? read('proxy-client-cert-file', flags.string('proxy-client-cert-file')!) : read('proxy-client-cert-file', files.clientCert);
  const clientKey = ownCert ? read('proxy-client-key-file', flags.string('proxy-client-key-file')!) : read('proxy-client-key-file', files.clientKey);
  if (!/-----BEGIN CERTIFICATE-----/.test(clientCert)) throw new Error('--proxy-client-cert-file: no PEM certificate in the file');
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(clientKey)) throw new Error('--proxy-client-key-file: no PEM private key in the file');
  const caFile = flags.string('requestheader-client-ca-file');
  const list = (name: string, fallback: string[]): string[] => {
    const v = flags.list(name);
    return v.length > 0 ? v : fallback;
  };
  return {
    clientCert,
    clientKey,
    clientCA: files.clientCA,
    requestHeaderCA: caFile ? read('requestheader-client-ca-file', caFile) : read('requestheader-client-ca-file', files.ca),
    allowedNames: list('requestheader-allowed-names', caFile || ownCert ? [] : [files.clientCommonName]),
    usernameHeaders: list('requestheader-username-headers', ['X-Remote-User']),
    groupHeaders: list('requestheader-group-headers', ['X-Remote-Group']),
    extraHeaderPrefixes: list('requestheader-extra-headers-prefix', ['X-Remote-Extra-']),
  };
}
