// The `cluster-info` ConfigMap in the public namespace: a kubeconfig naming the server and its
// CA, readable without credentials, so that a joining client can find the cluster and check
// it with a bootstrap token's signature. kubeadm writes it when it sets a cluster up; this
// server sets itself up, so its start-up writes it (create when missing, as kubeadm does).
import { stringify } from 'yaml';
import { isApiError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { systemNamespace } from '../../naming/index.js';

export const CLUSTER_INFO = 'cluster-info';
export const KUBECONFIG_KEY = 'kubeconfig';
export const JWS_KEY_PREFIX = 'jws-kubeconfig-';
export const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };

/** `orch-public` / `kube-public`. */
export function clusterInfoNamespace(): string {
  return systemNamespace('public');
}

/**
 * The kubeconfig as kubeadm publishes it: one cluster with an empty name, no users or
 * contexts, written in the field order and layout of Go's kubeconfig writer.
 */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  const config = {
    apiVersion: 'v1',
    clusters: [{ cluster: { 'certificate-authority-data': Buffer.from(caPem, 'utf8').toString('base64'), server }, name: '' }],
    contexts: null,
    'current-context': '',
    kind: 'Config',
    preferences: {},
    users: null,
  };
  return stringify(config, { indentSeq: false, lineWidth: 0 });
}

export function clusterInfoConfigMap(server: string, caPem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CLUSTER_INFO, namespace: clusterInfoNamespace() },
    data: { [KUBECONFIG_KEY]: clusterInfoKubeconfig(server, caPem) },
  };
}

/**
 * Creates cluster-info when it is missing; an existing one is left as it is (an operator may
 * publish another address, as with kubeadm). Returns true when it created it.
 */
export async function ensureClusterInfo(client: ApiClient, server: string, caPem: string): Promise<boolean> {
  try {
    await client.get(CONFIG_MAPS, clusterInfoNamespace(), CLUSTER_INFO);
    return false;
  } catch (err) {
    if (!(isApiError(err) && err.code === 404)) throw err;
  }
  try {
    await client.create(CONFIG_MAPS, clusterInfoNamespace(), clusterInfoConfigMap(server, caPem));
    return true;
  } catch (err) {
    // Another server process on the same store created it first.
    if (isApiError(err) && err.code === 409) return false;
    throw err;
  }
}
