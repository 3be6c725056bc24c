// How the API server reaches a node's agent (the kubelet), as kube-apiserver's kubelet client
// does: the node's address of the first preferred type, the port the node reports in
// `status.daemonEndpoints.kubeletEndpoint.Port` (10250 when it reports none), HTTPS with the
// server's kubelet client certificate, the agent's certificate checked only against
// `--kubelet-certificate-authority` when one is given.
import { ApiError } from '../../apimachinery/errors.js';
import type { FlagDefinition, ParsedFlags } from '../../apimachinery/flags.js';
import { getOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { longDomainKey } from '../../naming/index.js';
import type { RequestContext, RESTStore } from '../../rest/index.js';

/** kube-apiserver's `--kubelet-port` default. */
export const DEFAULT_KUBELET_PORT = 10250;

/** kube-apiserver's default `--kubelet-preferred-address-types`. */
export const DEFAULT_PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

const ADDRESS_TYPES = new Set(DEFAULT_PREFERRED_ADDRESS_TYPES);

/** The TLS side of the connection to node agents. */
export interface KubeletClientConfig {
  preferredAddressTypes: string[];
  /** The client certificate and key the server presents (PEM). */
  cert?: string | Buffer;
  key?: string | Buffer;
  /** The CA that signs agents' serving certificates; without one they are not verified, as in Kubernetes. */
  ca?: string | Buffer;
}

/** Where one node's agent listens. */
export interface ConnectionInfo {
  scheme: 'https';
  hostname: string;
  port: string;
  tls: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; insecureSkipVerify: boolean };
}

export const kubeletFlagDefinitions: FlagDefinition[] = [
  { name: 'kubelet-client-certificate', type: 'string', usage: 'Path to a client cert file for TLS (the server presents it to node agents). Defaults to one generated in the data directory.' },
  { name: 'kubelet-client-key', type: 'string', usage: 'Path to a client key file for TLS.' },
  { name: 'kubelet-certificate-authority', type: 'string', usage: "Path to a cert file for the certificate authority of node agents' serving certificates; without it they are not verified." },
  {
    name: 'kubelet-preferred-address-types',
    type: 'stringList',
    default: DEFAULT_PREFERRED_ADDRESS_TYPES,
    usage: 'List of the preferred NodeAddressTypes to use for kubelet connections.',
  },
];

/** Checks `--kubelet-preferred-address-types`; the other flags are files the caller reads. */
export function preferredAddressTypesFromFlags(flags: ParsedFlags): string[] {
  const types = flags.list('kubelet-preferred-address-types');
  const list = types.length > 0 ? types : DEFAULT_PREFERRED_ADDRESS_TYPES;
  for (const t of list) {
    if (!ADDRESS_TYPES.has(t)) throw new Error(`--kubelet-preferred-address-types: ${JSON.stringify(t)} is not a valid address type (${DEFAULT_PREFERRED_ADDRESS_TYPES.join(', ')})`);
  }
  return list;
}

function record(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? (v as Record<string, unknown>) : {};
}

/** A node's address of the first preferred type; a `Hostname` preference falls back to the hostname label. */
export function preferredNodeAddress(node: KubeObject, preferred: readonly string[]): string {
  const status = record(node.status);
  const addresses = Array.isArray(status.addresses) ? status.addresses.map(record) : [];
  for (const type of preferred) {
    const hit = addresses.find((a) => a.type === type && typeof a.address === 'string');
    if (hit) return hit.address as string;
    if (type === 'Hostname') {
      const label = getOwn(record(node.metadata?.labels), longDomainKey('hostname'));
      if (typeof label === 'string' && label !== '') return label;
    }
  }
  // Kubernetes prints the addresses as Go's %v of the list.
  const known = addresses.map((a) => `{${String(a.type ?? '')} ${String(a.address ?? '')}}`).join(' ');
  throw unknownError(500, `no preferred addresses found; known addresses: [${known}]`);
}

/** The port a node's agent reports, or the default. */
export function kubeletPort(node: KubeObject): number {
  const port = record(record(record(record(node.status).daemonEndpoints).kubeletEndpoint)).Port;
  return typeof port === 'number' && Number.isInteger(port) && port > 0 && port <= 65535 ? port : DEFAULT_KUBELET_PORT;
}

/**
 * A plain error as kube-apiserver answers one that is not a Status (a dial error, a node
 * without addresses): the code, the message, and no reason.
 */
export function unknownError(code: number, message: string): ApiError {
  const err = new ApiError(code, '', message);
  delete (err.status as { reason?: string }).reason;
  return err;
}

/** Looks nodes up in the nodes Store and says where their agents listen. */
export class NodeConnections {
  constructor(
    private readonly nodes: RESTStore,
    private readonly config: KubeletClientConfig,
  ) {}

  async get(ctx: RequestContext, nodeName: string): Promise<ConnectionInfo> {
    if (!this.nodes.get) throw new Error('nodes: the store cannot get');
    const node = await this.nodes.get(ctx, '', nodeName, {});
    return this.infoOf(node);
  }

  infoOf(node: KubeObject): ConnectionInfo {
    const { ca, cert, key } = this.config;
    return {
      scheme: 'https',
      hostname: preferredNodeAddress(node, this.config.preferredAddressTypes),
      port: String(kubeletPort(node)),
      tls: { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}), insecureSkipVerify: !ca },
    };
  }
}
