// The two naming flavors. Every product-specific identifier is declared here once, as a
// pair of its forms; no other module spells the product's domain. The server picks a
// flavor at start-up (`--compat kubernetes`), before anything reads a name.

export type Flavor = 'orch' | 'kubernetes';

interface FlavorWords {
  /** API group suffix and label/annotation domain: `orch.io` or `k8s.io`. */
  domain: string;
  /** Longer domain used by well-known labels and annotations: `orch.io` or `kubernetes.io`. */
  longDomain: string;
  /** The word itself: `orch` or `kube` / `kubernetes` depending on the identifier. */
  short: string;
  /** Prefix of system namespaces: `orch-system` or `kube-system`. */
  namespacePrefix: string;
  /** Media type vendor: `application/vnd.orch.protobuf` or `application/vnd.kubernetes.protobuf`. */
  vendor: string;
  /** OpenAPI extension prefix: `x-orch-` or `x-kubernetes-`. */
  extensionPrefix: string;
  /** Environment variable of the exec credential plugin protocol. */
  execInfoEnv: string;
}

const words: Record<Flavor, FlavorWords> = {
  orch: {
    domain: 'orch.io',
    longDomain: 'orch.io',
    short: 'orch',
    namespacePrefix: 'orch',
    vendor: 'orch',
    extensionPrefix: 'x-orch-',
    execInfoEnv: 'ORCH_EXEC_INFO',
  },
  kubernetes: {
    domain: 'k8s.io',
    longDomain: 'kubernetes.io',
    short: 'kube',
    namespacePrefix: 'kube',
    vendor: 'kubernetes',
    extensionPrefix: 'x-kubernetes-',
    execInfoEnv: 'KUBERNETES_EXEC_INFO',
  },
};

let current: Flavor = 'orch';

/** Chooses the flavor for this process. Call once at start-up (tests may call it per file). */
export function setFlavor(flavor: Flavor): void {
  current = flavor;
}

export function flavor(): Flavor {
  return current;
}

function w(): FlavorWords {
  return words[current];
}

/**
 * Group names. Groups that carry the product domain are written here by their base
 * (`rbac.authorization`, `apps` has none): `group('rbac.authorization')` is
 * `rbac.authorization.orch.io` or `rbac.authorization.k8s.io`.
 */
export function group(base: string): string {
  return `${base}.${w().domain}`;
}

/**
 * Maps a Kubernetes group name (as written in the upstream reference data, e.g.
 * `rbac.authorization.k8s.io`) to the served name in the current flavor. Groups without
 * the product domain (`apps`, `batch`, the core group `""`) are returned unchanged.
 */
export function fromKubernetesGroup(kubeGroup: string): string {
  return kubeGroup.endsWith('.k8s.io') ? group(kubeGroup.slice(0, -'.k8s.io'.length)) : kubeGroup;
}

/**
 * The flavor whose domain a group name carries (`client.authentication.k8s.io` is the
 * kubernetes flavor's), whatever the flavor of the moment; undefined for groups of neither.
 */
export function flavorOfGroup(groupName: string): Flavor | undefined {
  return (Object.keys(words) as Flavor[]).find((f) => groupName.endsWith(`.${words[f].domain}`));
}

/** The inverse of `fromKubernetesGroup`: the upstream name of a served group. */
export function toKubernetesGroup(servedGroup: string): string {
  const suffix = `.${w().domain}`;
  return servedGroup.endsWith(suffix) ? `${servedGroup.slice(0, -suffix.length)}.k8s.io` : servedGroup;
}

/** Maps an upstream `apiVersion` (`rbac.authorization.k8s.io/v1`) to the served one. */
export function fromKubernetesApiVersion(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  if (slash < 0) return apiVersion;
  return `${fromKubernetesGroup(apiVersion.slice(0, slash))}/${apiVersion.slice(slash + 1)}`;
}

/** Label, annotation and finalizer keys under the short domain: `orch.io/<name>` / `k8s.io/<name>`. */
export function domainKey(name: string, subdomain?: string): string {
  return subdomain ? `${subdomain}.${w().domain}/${name}` : `${w().domain}/${name}`;
}

/** Keys under the long domain: `orch.io/<name>` / `kubernetes.io/<name>`. */
export function longDomainKey(name: string, subdomain?: string): string {
  return subdomain ? `${subdomain}.${w().longDomain}/${name}` : `${w().longDomain}/${name}`;
}

/** The bare long domain (`orch.io` / `kubernetes.io`), e.g. for signer names `orch.io/apiserver-client`. */
export function longDomain(): string {
  return w().longDomain;
}

/** The bare short domain (`orch.io` / `k8s.io`). */
export function domain(): string {
  return w().domain;
}

/** System namespaces: `systemNamespace('system')` is `orch-system` / `kube-system`. */
export function systemNamespace(suffix: 'system' | 'public' | 'node-lease'): string {
  return `${w().namespacePrefix}-${suffix}`;
}

/** The namespace finalizer that the namespace controller removes: `orch` / `kubernetes`. */
export function namespaceFinalizer(): string {
  return current === 'orch' ? 'orch' : 'kubernetes';
}

/** The binary (protobuf) media type of this flavor. */
export function protobufMediaType(): string {
  return `application/vnd.${w().vendor}.protobuf`;
}

/**
 * Both binary media type names, this flavor's first. HTTP serves only this flavor's name;
 * the envelope's own `contentType` field may carry either, since the bytes are the same.
 */
export function protobufMediaTypes(): string[] {
  return ['application/vnd.orch.protobuf', 'application/vnd.kubernetes.protobuf'].sort((a, b) =>
    a === protobufMediaType() ? -1 : b === protobufMediaType() ? 1 : 0,
  );
}

/** OpenAPI schema extensions: `extension('list-type')` is `x-orch-list-type` / `x-kubernetes-list-type`. */
export function extension(name: string): string {
  return `${w().extensionPrefix}${name}`;
}

/** The environment variable that hands a credential plugin its ExecCredential: `ORCH_EXEC_INFO` / `KUBERNETES_EXEC_INFO`. */
export function execInfoEnv(): string {
  return w().execInfoEnv;
}

/** The meta group used by Table, PartialObjectMetadata, WatchEvent: `meta.orch.io` / `meta.k8s.io`. */
export function metaGroup(): string {
  return group('meta');
}

/** The group of aggregated discovery documents: `apidiscovery.orch.io` / `apidiscovery.k8s.io`. */
export function discoveryGroup(): string {
  return group('apidiscovery');
}

/** The name the server reports for itself in `/version`'s platform-independent fields and logs. */
export function productName(): string {
  return current === 'orch' ? 'orch' : 'kubernetes';
}

/** The short lower-case word used in identifiers such as `kube-apiserver` / `orch-apiserver`. */
export function shortWord(): string {
  return w().short;
}

// KWOK's own identifiers: they belong to KWOK, not to the product, so they are the same in
// both flavors (manifests written for KWOK work unchanged against either).

/** KWOK's API group (`Stage`, `Logs`, `ClusterLogs` documents). */
export const KWOK_GROUP = 'kwok.x-k8s.io';

/** The annotation that marks a Node as simulated (KWOK's convention), with its value. */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
export const KWOK_NODE_ANNOTATION_VALUE = 'fake';

/**
 * Groups of the product's own APIs (not Kubernetes' groups under another name): the same in
 * both flavors, `productGroup('history')` is `history.orch.io`.
 */
export function productGroup(base: string): string {
  return `${base}.${words.orch.domain}`;
}
