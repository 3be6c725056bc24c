// The Node authorizer: agents (`system:node:<name>` in `system:nodes`) get the node role's
// permissions, but secrets, config maps, volume claims and service account tokens only
// when a pod bound to that node references them.
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { defaultClusterRoles } from '../rbac/bootstrap-policy.js';
import { ruleAllows, type PolicyRule } from '../rbac/rules.js';
import { rulesOf } from '../rbac/authorizer.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';

const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';

export function nodeNameOf(username: string, groups: string[]): string | undefined {
  if (!groups.includes(NODES_GROUP) || !username.startsWith(NODE_USER_PREFIX)) return undefined;
  const name = username.slice(NODE_USER_PREFIX.length);
  return name === '' ? undefined : name;
}

type RefKind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

/** The names of objects a pod references, by kind. */
function podReferences(pod: KubeObject): Record<RefKind, Set<string>> {
  const refs: Record<RefKind, Set<string>> = { secrets: new Set(), configmaps: new Set(), persistentvolumeclaims: new Set(), serviceaccounts: new Set() };
  const spec = isPlainObject(pod['spec']) ? pod['spec'] : {};
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const add = (k: RefKind, v: unknown) => {
    const s = str(v);
    if (s) refs[k].add(s);
  };
  add('serviceaccounts', spec['serviceAccountName'] ?? 'default');
  for (const s of Array.isArray(spec['imagePullSecrets']) ? spec['imagePullSecrets'] : []) if (isPlainObject(s)) add('secrets', s['name']);
  for (const v of Array.isArray(spec['volumes']) ? spec['volumes'] : []) {
    if (!isPlainObject(v)) continue;
    if (isPlainObject(v['secret'])) add('secrets', v['secret']['secretName']);
    if (isPlainObject(v['configMap'])) add('configmaps', v['configMap']['name']);
    if (isPlainObject(v['persistentVolumeClaim'])) add('persistentvolumeclaims', v['persistentVolumeClaim']['claimName']);
    const projected = isPlainObject(v['projected']) && Array.isArray(v['projected']['sources']) ? v['projected']['sources'] : [];
    for (const src of projected) {
      if (!isPlainObject(src)) continue;
      if (isPlainObject(src['secret'])) add('secrets', src['secret']['name']);
      if (isPlainObject(src['configMap'])) add('configmaps', src['configMap']['name']);
    }
  }
  const containers = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as unknown[]) : []));
  for (const c of containers) {
    if (!isPlainObject(c)) continue;
    for (const e of Array.isArray(c['env']) ? c['env'] : []) {
      if (!isPlainObject(e) || !isPlainObject(e['valueFrom'])) continue;
      const vf = e['valueFrom'];
      if (isPlainObject(vf['secretKeyRef'])) add('secrets', vf['secretKeyRef']['name']);
      if (isPlainObject(vf['configMapKeyRef'])) add('configmaps', vf['configMapKeyRef']['name']);
    }
    for (const ef of Array.isArray(c['envFrom']) ? c['envFrom'] : []) {
      if (!isPlainObject(ef)) continue;
      if (isPlainObject(ef['secretRef'])) add('secrets', ef['secretRef']['name']);
      if (isPlainObject(ef['configMapRef'])) add('configmaps', ef['configMapRef']['name']);
    }
  }
  return refs;
}

export class NodeAuthorizer implements Authorizer {
  private readonly nodeRules: PolicyRule[];

  /**
   * `podsOnNode` lists the pods bound to a node (from a watch-fed cache); `getClaim` reads a
   * volume claim, to follow a pod's claims to their persistent volumes.
   */
  constructor(
    private readonly podsOnNode: (node: string) => KubeObject[],
    private readonly getClaim: (namespace: string, name: string) => Promise<KubeObject | undefined> = async () => undefined,
  ) {
    this.nodeRules = rulesOf(defaultClusterRoles().find((r) => r.metadata?.name === 'system:node'));
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const node = nodeNameOf(attrs.user.username, attrs.user.groups);
    if (node === undefined) return { decision: 'NoOpinion', reason: '' };
    if (!attrs.isResourceRequest) return { decision: 'NoOpinion', reason: '' };
    const core = attrs.apiGroup === '';
    const graphKind: RefKind | undefined =
      core && ['secrets', 'configmaps', 'persistentvolumeclaims'].includes(attrs.resource) && attrs.subresource === ''
        ? (attrs.resource as RefKind)
        : core && attrs.resource === 'serviceaccounts' && attrs.subresource === 'token'
          ? 'serviceaccounts'
          : undefined;
    if (graphKind) {
      const verbOk = graphKind === 'serviceaccounts' ? attrs.verb === 'create' : attrs.verb === 'get';
      if (!verbOk || !attrs.name) return { decision: 'NoOpinion', reason: `can only ${graphKind === 'serviceaccounts' ? 'create tokens for' : 'get'} individual resources of this type` };
      const linked = this.podsOnNode(node).some((p) => p.metadata?.namespace === attrs.namespace && podReferences(p)[graphKind].has(attrs.name));
      if (linked) return { decision: 'Allow', reason: '' };
      return { decision: 'NoOpinion', reason: `no relationship found between node '${node}' and this object` };
    }
    if (core && attrs.resource === 'persistentvolumes' && attrs.subresource === '') {
      if (attrs.verb === 'get' && attrs.name && (await this.volumeLinked(node, attrs.name))) return { decision: 'Allow', reason: '' };
      return { decision: 'NoOpinion', reason: `no relationship found between node '${node}' and this object` };
    }
    if (this.nodeRules.some((r) => ruleAllows(attrs, r))) return { decision: 'Allow', reason: '' };
    return { decision: 'NoOpinion', reason: '' };
  }

  /** Whether a pod on the node uses a claim bound to the volume. */
  private async volumeLinked(node: string, volume: string): Promise<boolean> {
    for (const pod of this.podsOnNode(node)) {
      for (const claimName of podReferences(pod).persistentvolumeclaims) {
        const claim = await this.getClaim(pod.metadata?.namespace ?? '', claimName).catch(() => undefined);
        const spec = claim && isPlainObject(claim['spec']) ? claim['spec'] : {};
        if (spec['volumeName'] === volume) return true;
      }
    }
    return false;
  }
}
