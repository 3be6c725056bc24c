// The Node authorizer: agents (`system:node:<name>` in `system:nodes`) get the node role's
// permissions, but the objects a node may only reach through its pods are subdivided, as in
// kube-apiserver 1.27:
//   secrets, config maps          get, list, watch of one name, when a pod on the node (or a
//                                 volume of one of its claims) references it (a list or
//                                 watch names one object by a `metadata.name` field selector)
//   persistent volume claims      get of one its pods use; update/patch of their status
//   persistent volumes            get of one bound to such a claim
//   volume attachments            get of one attached to the node
//   service accounts              create of a token for one its pods run as
//   leases                        its own lease in the node-lease namespace
//   CSI nodes                     its own
import type { KubeObject } from '../../apimachinery/types.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { group, systemNamespace } from '../../naming/index.js';
import { defaultClusterRoles } from '../rbac/bootstrap-policy.js';
import { ruleAllows, type PolicyRule } from '../rbac/rules.js';
import { rulesOf } from '../rbac/authorizer.js';
import type { AuthorizationAttributes, AuthorizationResult, Authorizer } from '../types.js';

const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';

/** The node a user speaks for: undefined when not a node, '' when a node of no known name. */
export function nodeNameOf(username: string, groups: string[]): string | undefined {
  if (!groups.includes(NODES_GROUP) || !username.startsWith(NODE_USER_PREFIX)) return undefined;
  return username.slice(NODE_USER_PREFIX.length);
}

type RefKind = 'secrets' | 'configmaps' | 'persistentvolumeclaims' | 'serviceaccounts';

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (isPlainObject(v) ? v : undefined);
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isPlainObject) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Volume sources whose `secretRef.name` names a secret of the pod's namespace. */
const SECRET_REF_SOURCES = ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos'];

/** The names of the objects a pod references, by kind (Kubernetes' pod secret and config map visitors). */
function podReferences(pod: KubeObject): Record<RefKind, Set<string>> {
  const refs: Record<RefKind, Set<string>> = { secrets: new Set(), configmaps: new Set(), persistentvolumeclaims: new Set(), serviceaccounts: new Set() };
  const spec = obj(pod['spec']) ?? {};
  const add = (k: RefKind, v: unknown): void => {
    const s = str(v);
    if (s) refs[k].add(s);
  };
  add('serviceaccounts', spec['serviceAccountName']);
  for (const s of list(spec['imagePullSecrets'])) add('secrets', s['name']);
  const podName = typeof pod.metadata?.name === 'string' ? pod.metadata.name : '';
  for (const v of list(spec['volumes'])) {
    add('secrets', obj(v['secret'])?.['secretName']);
    add('secrets', obj(v['azureFile'])?.['secretName']);
    add('secrets', obj(obj(v['csi'])?.['nodePublishSecretRef'])?.['name']);
    for (const source of SECRET_REF_SOURCES) add('secrets', obj(obj(v[source])?.['secretRef'])?.['name']);
    add('configmaps', obj(v['configMap'])?.['name']);
    add('persistentvolumeclaims', obj(v['persistentVolumeClaim'])?.['claimName']);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (obj(v['ephemeral']) && podName && str(v['name'])) refs.persistentvolumeclaims.add(`${podName}-${String(v['name'])}`);
    for (const src of list(obj(v['projected'])?.['sources'])) {
      add('secrets', obj(src['secret'])?.['name']);
      add('configmaps', obj(src['configMap'])?.['name']);
    }
  }
  const containers = ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) => list(spec[k]));
  for (const c of containers) {
    for (const e of list(c['env'])) {
      const vf = obj(e['valueFrom']);
      add('secrets', obj(vf?.['secretKeyRef'])?.['name']);
      add('configmaps', obj(vf?.['configMapKeyRef'])?.['name']);
    }
    for (const ef of list(c['envFrom'])) {
      add('secrets', obj(ef['secretRef'])?.['name']);
      add('configmaps', obj(ef['configMapRef'])?.['name']);
    }
  }
  return refs;
}

/** `[namespace, name]` of the secrets a persistent volume's source references. */
function volumeSecrets(pv: KubeObject): [string, string][] {
  const spec = obj(pv['spec']) ?? {};
  const claimNs = str(obj(spec['claimRef'])?.['namespace']) ?? '';
  const out: [string, string][] = [];
  const ref = (r: unknown, defaultNs = ''): void => {
    const name = str(obj(r)?.['name']);
    if (name) out.push([str(obj(r)?.['namespace']) ?? defaultNs, name]);
  };
  const azureFile = obj(spec['azureFile']);
  if (azureFile && str(azureFile['secretName'])) out.push([str(azureFile['secretNamespace']) ?? claimNs, String(azureFile['secretName'])]);
  for (const source of SECRET_REF_SOURCES) ref(obj(spec[source])?.['secretRef'], claimNs);
  const csi = obj(spec['csi']);
  for (const k of ['controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef']) ref(csi?.[k]);
  return out;
}

export interface NodeGraphLookups {
  /** A persistent volume claim, to follow a pod's claims to their volumes. */
  claim?(namespace: string, name: string): Promise<KubeObject | undefined>;
  /** A persistent volume, to follow a claim to the secrets its source names. */
  volume?(name: string): Promise<KubeObject | undefined>;
  /** A volume attachment, to see which node it is for. */
  attachment?(name: string): Promise<KubeObject | undefined>;
}

const noOpinion = (reason: string): AuthorizationResult => ({ decision: 'NoOpinion', reason });
const ALLOW: AuthorizationResult = { decision: 'Allow', reason: '' };
const NODE_OBJECT_VERBS = new Set(['get', 'create', 'update', 'patch', 'delete']);

export class NodeAuthorizer implements Authorizer {
  private readonly nodeRules: PolicyRule[];

  /** `podsOnNode` lists the pods bound to a node (from a watch-fed cache). */
  constructor(
    private readonly podsOnNode: (node: string) => KubeObject[],
    private readonly lookups: NodeGraphLookups = {},
  ) {
    this.nodeRules = rulesOf(defaultClusterRoles().find((r) => r.metadata?.name === 'system:node'));
  }

  async authorize(attrs: AuthorizationAttributes): Promise<AuthorizationResult> {
    const node = nodeNameOf(attrs.user.username, attrs.user.groups);
    if (node === undefined) return noOpinion('');
    if (node === '') return noOpinion(`unknown node for user "${attrs.user.username}"`);
    if (attrs.isResourceRequest) {
      const decided = await this.subdivided(node, attrs);
      if (decided) return decided;
    }
    if (this.nodeRules.some((r) => ruleAllows(attrs, r))) return ALLOW;
    return noOpinion('');
  }

  /** The decision for the resources whose access depends on the node's pods; undefined for the rest. */
  private async subdivided(node: string, attrs: AuthorizationAttributes): Promise<AuthorizationResult | undefined> {
    const { apiGroup, resource, subresource, verb } = attrs;
    if (apiGroup === '') {
      switch (resource) {
        case 'secrets':
        case 'configmaps':
          if (verb !== 'get' && verb !== 'list' && verb !== 'watch') return noOpinion('can only read resources of this type');
          if (subresource !== '') return noOpinion('cannot read subresource');
          if (attrs.namespace === '') return noOpinion('can only read namespaced object of this type');
          return this.related(node, attrs, () => this.referencedByPods(node, resource, attrs.namespace, attrs.name));
        case 'persistentvolumeclaims':
          if (subresource === 'status') {
            if (verb !== 'update' && verb !== 'patch') return noOpinion('can only get/update/patch this type');
          } else {
            const refused = getOnly(attrs);
            if (refused) return refused;
          }
          return this.related(node, attrs, () => this.referencedByPods(node, 'persistentvolumeclaims', attrs.namespace, attrs.name));
        case 'persistentvolumes':
          return getOnly(attrs) ?? this.related(node, attrs, () => this.volumeLinked(node, attrs.name));
        case 'serviceaccounts':
          if (verb !== 'create' || attrs.name === '') return noOpinion('can only create tokens for individual service accounts');
          if (subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
          return this.related(node, attrs, () => this.referencedByPods(node, 'serviceaccounts', attrs.namespace, attrs.name));
        default:
          return undefined;
      }
    }
    if (apiGroup === group('storage') && resource === 'volumeattachments') {
      return getOnly(attrs) ?? this.related(node, attrs, async () => str(obj((await this.lookup(() => this.lookups.attachment?.(attrs.name)))?.['spec'])?.['nodeName']) === node);
    }
    if (apiGroup === group('coordination') && resource === 'leases') {
      if (!NODE_OBJECT_VERBS.has(verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
      const leases = systemNamespace('node-lease');
      if (attrs.namespace !== leases) return noOpinion(`can only access leases in the "${leases}" system namespace`);
      // A create has no name yet: NodeRestriction checks it.
      if (verb !== 'create' && attrs.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
      return ALLOW;
    }
    if (apiGroup === group('storage') && resource === 'csinodes') {
      if (!NODE_OBJECT_VERBS.has(verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
      if (subresource !== '') return noOpinion('cannot authorize CSINode subresources');
      if (verb !== 'create' && attrs.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
      return ALLOW;
    }
    return undefined;
  }

  /** Allows a named object the node is related to. */
  private async related(node: string, attrs: AuthorizationAttributes, linked: () => boolean | Promise<boolean>): Promise<AuthorizationResult> {
    if (attrs.name === '') return noOpinion('No Object name found');
    return (await linked()) ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  }

  private async referencedByPods(node: string, kind: RefKind, namespace: string, name: string): Promise<boolean> {
    const pods = this.podsOnNode(node).filter((p) => p.metadata?.namespace === namespace);
    if (pods.some((p) => podReferences(p)[kind].has(name))) return true;
    // node <- pod <- claim <- volume <- secret
    if (kind !== 'secrets' || !this.lookups.volume) return false;
    for (const pv of await this.volumesOf(node)) if (volumeSecrets(pv).some(([ns, n]) => ns === namespace && n === name)) return true;
    return false;
  }

  /** The persistent volumes bound to the claims of the node's pods. */
  private async volumesOf(node: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const pod of this.podsOnNode(node)) {
      for (const claimName of podReferences(pod).persistentvolumeclaims) {
        const claim = await this.lookup(() => this.lookups.claim?.(pod.metadata?.namespace ?? '', claimName));
        const volumeName = str(obj(claim?.['spec'])?.['volumeName']);
        const pv = volumeName ? await this.lookup(() => this.lookups.volume?.(volumeName)) : undefined;
        if (pv) out.push(pv);
      }
    }
    return out;
  }

  /** Whether a pod on the node uses a claim bound to the volume. */
  private async volumeLinked(node: string, volume: string): Promise<boolean> {
    for (const pod of this.podsOnNode(node)) {
      for (const claimName of podReferences(pod).persistentvolumeclaims) {
        const claim = await this.lookup(() => this.lookups.claim?.(pod.metadata?.namespace ?? '', claimName));
        if (obj(claim?.['spec'])?.['volumeName'] === volume) return true;
      }
    }
    return false;
  }

  /** A lookup that fails reads as a missing object: no relationship. */
  private async lookup(get: () => Promise<KubeObject | undefined> | undefined): Promise<KubeObject | undefined> {
    try {
      return await get();
    } catch {
      return undefined;
    }
  }
}

/** `get` of one object, no subresource: the only access to claims, volumes and attachments. */
function getOnly(attrs: AuthorizationAttributes): AuthorizationResult | undefined {
  if (attrs.verb !== 'get') return noOpinion('can only get individual resources of this type');
  if (attrs.subresource !== '') return noOpinion('cannot get subresource');
  return undefined;
}
