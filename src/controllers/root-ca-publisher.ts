// The root CA publisher: a ConfigMap in every active namespace holding the cluster CA in
// `ca.crt`, so that pods can verify the API server (their token volumes project it).
// Edits to its data are put back.
import type { KubeObject } from '../apimachinery/types.js';
import { longDomainKey, productName, shortWord } from '../naming/index.js';
import { PerNamespaceObjectController, type PerNamespaceOptions } from './per-namespace.js';
import { rootCAConfigMapName, ROOT_CA_KEY } from '../naming/root-ca.js';

const CONFIG_MAPS = { group: '', version: 'v1', resource: 'configmaps' };

export function descriptionAnnotation(): string {
  return longDomainKey('description');
}

function description(): string {
  const product = productName();
  const cluster = product === 'kubernetes' ? 'Kubernetes' : product;
  return (
    `Contains a CA bundle that can be used to verify the ${shortWord()}-apiserver when using internal endpoints such as the internal service IP or ${product}.default.svc. ` +
    `No other usage is guaranteed across distributions of ${cluster} clusters.`
  );
}

export function rootCAConfigMap(caPem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: rootCAConfigMapName(), annotations: { [descriptionAnnotation()]: description() } },
    data: { [ROOT_CA_KEY]: caPem },
  };
}

/** The ConfigMap with the CA and description put back, or undefined when both are as they should be. */
export function repairRootCA(current: KubeObject, caPem: string): KubeObject | undefined {
  const data = (current.data ?? {}) as Record<string, unknown>;
  const annotations = current.metadata?.annotations ?? {};
  const exact = Object.keys(data).length === 1 && data[ROOT_CA_KEY] === caPem;
  if (exact && annotations[descriptionAnnotation()]) return undefined;
  return {
    ...current,
    metadata: { ...current.metadata, annotations: { ...annotations, [descriptionAnnotation()]: description() } },
    data: { [ROOT_CA_KEY]: caPem },
  };
}

export function startRootCAPublisher(caPem: string, opts: PerNamespaceOptions): PerNamespaceObjectController {
  return new PerNamespaceObjectController(
    {
      controller: 'root-ca-cert-publisher',
      queueName: 'root_ca_cert_publisher',
      resource: CONFIG_MAPS,
      name: rootCAConfigMapName(),
      desired: () => rootCAConfigMap(caPem),
      repair: (current) => repairRootCA(current, caPem),
    },
    opts,
  );
}
