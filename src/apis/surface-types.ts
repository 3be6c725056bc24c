// The shape of the generated surface data (src/apis/surface.ts).

interface SurfaceSubresource {
  name: string;
  kind: string;
  /** Upstream group and version of the subresource's kind when it is not the parent's. */
  group?: string;
  version?: string;
  verbs: string[];
}

export interface SurfaceResource {
  /** Upstream group name (`rbac.authorization.k8s.io`, `apps`, `` for core). */
  group: string;
  version: string;
  resource: string;
  kind: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: SurfaceSubresource[];
  /** How it is on by default: its whole group-version, itself alone (legacy betas), or not at all. */
  defaultEnabled: 'version' | 'resource' | 'off';
  /** Preferred version of its group in the default configuration. */
  preferred: boolean;
  deprecated?: { since?: string; removedIn?: string; replacement?: string };
  /** Scheduled (not yet effective) deprecation and removal releases. */
  lifecycle?: { deprecatedIn?: string; removedIn?: string };
  introducedIn?: string;
  /** Upstream group, resource and version it is stored as; absent for virtual resources. */
  storage?: { group: string; resource: string; version: string };
  /** Upstream key prefix when it differs from the resource name (informational). */
  etcdPrefix?: string;
}
