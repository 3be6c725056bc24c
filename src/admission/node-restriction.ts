// NodeRestriction: what a node agent (`system:node:<name>` in group `system:nodes`) may write.
// Its own Node only (not its taints, not a new configSource, not the labels reserved to
// administrators), mirror pods bound to itself that reference no other object, deletion,
// status and eviction of pods bound to it, the status of claims, its own lease and CSINode,
// and service account tokens bound to its pods. The Node authorizer decides reads; this
// plugin decides the writes it cannot judge without the object.
import { deepEqual } from '../apimachinery/equality.js';
import { isPlainObject, type KubeObject } from '../apimachinery/types.js';
import type { ApiClient } from '../client/types.js';
import { domain, group, longDomain, longDomainKey, systemNamespace } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { admissionForbidden, mapsAt, specOf, stringMapAt, type JsonMap } from './util.js';

const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';

/** The node a user speaks for: undefined when not a node, '' when a node whose name is missing. */
export function nodeIdentity(user: { username: string; groups: string[] }): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

export function mirrorPodAnnotation(): string {
  return longDomainKey('config.mirror');
}

/** The labels a kubelet sets on its own Node, and the label domains it owns. */
function kubeletLabels(): Set<string> {
  return new Set([
    longDomainKey('hostname'),
    longDomainKey('zone', 'topology'),
    longDomainKey('region', 'topology'),
    longDomainKey('zone', 'failure-domain.beta'),
    longDomainKey('region', 'failure-domain.beta'),
    longDomainKey('instance-type', 'beta'),
    longDomainKey('instance-type', 'node'),
    longDomainKey('os'),
    longDomainKey('arch'),
    longDomainKey('os', 'beta'),
    longDomainKey('arch', 'beta'),
  ]);
}

function labelDomain(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

const inDomain = (d: string, parent: string): boolean => d === parent || d.endsWith(`.${parent}`);

function isKubeletLabel(key: string): boolean {
  if (kubeletLabels().has(key)) return true;
  const d = labelDomain(key);
  return inDomain(d, `kubelet.${longDomain()}`) || inDomain(d, `node.${longDomain()}`);
}

/** The label keys a node may not add, remove or change: `node-restriction.` ones, and the product's own not set by kubelets. */
export function forbiddenNodeLabels(modified: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const key of modified) {
    const d = labelDomain(key);
    if (inDomain(d, `node-restriction.${longDomain()}`)) out.add(key);
    const reserved = inDomain(d, longDomain()) || inDomain(d, domain());
    if (reserved && !isKubeletLabel(key)) out.add(key);
  }
  return [...out].sort();
}

function modifiedLabels(a: Record<string, string>, b: Record<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (!Object.hasOwn(b, k) || b[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b)) if (!Object.hasOwn(a, k) || a[k] !== v) out.add(k);
  return out;
}

const labelsOf = (o: KubeObject | undefined): Record<string, string> => stringMapAt(o?.metadata as JsonMap | undefined, 'labels');
const nodeNameOf = (pod: KubeObject | undefined): string => {
  const n = specOf(pod)?.nodeName;
  return typeof n === 'string' ? n : '';
};

/** Whether the pod names a secret or a config map anywhere: image pull secrets, env, volumes. */
export function podReferences(spec: JsonMap | undefined): { secrets: boolean; configMaps: boolean; claims: boolean } {
  let secrets = mapsAt(spec, 'imagePullSecrets').length > 0;
  let configMaps = false;
  let claims = false;
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of mapsAt(spec, list)) {
      for (const e of mapsAt(c, 'env')) {
        const from = isPlainObject(e.valueFrom) ? e.valueFrom : undefined;
        if (isPlainObject(from?.secretKeyRef)) secrets = true;
        if (isPlainObject(from?.configMapKeyRef)) configMaps = true;
      }
      for (const e of mapsAt(c, 'envFrom')) {
        if (isPlainObject(e.secretRef)) secrets = true;
        if (isPlainObject(e.configMapRef)) configMaps = true;
      }
    }
  }
  // Volume sources that carry a secret reference of their own.
  const secretRefSources = ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi'];
  for (const v of mapsAt(spec, 'volumes')) {
    if (isPlainObject(v.secret)) secrets = true;
    if (isPlainObject(v.configMap)) configMaps = true;
    if (isPlainObject(v.persistentVolumeClaim)) claims = true;
    for (const source of secretRefSources) {
      const s = v[source];
      if (!isPlainObject(s)) continue;
      if (isPlainObject(s.secretRef) || isPlainObject(s.nodePublishSecretRef) || (source === 'azureFile' && typeof s.secretName === 'string')) secrets = true;
    }
    const projected = isPlainObject(v.projected) ? v.projected : undefined;
    for (const src of mapsAt(projected, 'sources')) {
      if (isPlainObject(src.secret)) secrets = true;
      if (isPlainObject(src.configMap)) configMaps = true;
    }
  }
  return { secrets, configMaps, claims };
}

const POD = { group: '', version: 'v1', resource: 'pods' };
const NODE = { group: '', version: 'v1', resource: 'nodes' };

export class NodeRestriction implements AdmissionPlugin {
  readonly name = 'NodeRestriction';
  readonly handles = (op: AdmissionOperation): boolean => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE';

  constructor(private readonly client: ApiClient) {}

  async admit(attrs: AdmissionAttributes): Promise<void> {
    const node = nodeIdentity(attrs.user);
    if (node === undefined) return;
    if (node === '') throw admissionForbidden(attrs, `could not determine node from user ${JSON.stringify(attrs.user.username)}`);
    const { group: g, resource } = attrs.resource;
    if (g === '' && resource === 'pods') {
      switch (attrs.subresource) {
        case '':
          return this.admitPod(node, attrs);
        case 'status':
          return admitPodStatus(node, attrs);
        case 'eviction':
          return this.admitPodEviction(node, attrs);
        default:
          throw admissionForbidden(attrs, `unexpected pod subresource ${JSON.stringify(attrs.subresource)}, only 'status' and 'eviction' are allowed`);
      }
    }
    if (g === '' && resource === 'nodes') return admitNode(node, attrs);
    if (g === '' && resource === 'persistentvolumeclaims') {
      if (attrs.subresource === 'status') return admitClaimStatus(node, attrs);
      throw admissionForbidden(attrs, 'may only update PVC status');
    }
    if (g === '' && resource === 'serviceaccounts') return this.admitServiceAccount(node, attrs);
    if (g === group('coordination') && resource === 'leases') return admitLease(node, attrs);
    if (g === group('storage') && resource === 'csinodes') return admitCSINode(node, attrs);
  }

  private async existingPod(attrs: AdmissionAttributes, name: string): Promise<KubeObject> {
    // A missing pod answers its 404; other lookup failures are a refusal.
    return this.client.get(POD, attrs.namespace, name);
  }

  private async admitPod(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation === 'CREATE') return this.admitPodCreate(node, attrs);
    if (attrs.operation === 'DELETE') {
      const existing = await this.existingPod(attrs, attrs.name);
      if (nodeNameOf(existing) !== node) throw admissionForbidden(attrs, `node ${JSON.stringify(node)} can only delete pods with spec.nodeName set to itself`);
      return;
    }
    throw admissionForbidden(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}, node ${JSON.stringify(node)} can only create and delete mirror pods`);
  }

  private async admitPodCreate(node: string, attrs: AdmissionAttributes): Promise<void> {
    const pod = attrs.object;
    const q = JSON.stringify(node);
    const annotations = stringMapAt(pod?.metadata as JsonMap | undefined, 'annotations');
    if (!Object.hasOwn(annotations, mirrorPodAnnotation())) {
      throw admissionForbidden(attrs, `pod does not have ${JSON.stringify(mirrorPodAnnotation())} annotation, node ${q} can only create mirror pods`);
    }
    if (nodeNameOf(pod) !== node) throw admissionForbidden(attrs, `node ${q} can only create pods with spec.nodeName set to itself`);
    const owners = Array.isArray(pod?.metadata?.ownerReferences) ? pod.metadata.ownerReferences : [];
    if (owners.length > 1) throw admissionForbidden(attrs, `node ${q} can only create pods with a single owner reference set to itself`);
    if (owners.length === 0) throw admissionForbidden(attrs, `node ${q} can only create pods with an owner reference set to itself`);
    const owner = owners[0] as unknown as JsonMap;
    if (!isPlainObject(owner) || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw admissionForbidden(attrs, `node ${q} can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true) throw admissionForbidden(attrs, `node ${q} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true) throw admissionForbidden(attrs, `node ${q} must not set blockOwnerDeletion on an owner reference`);
    const self = await this.client.get(NODE, '', node);
    const uid = typeof owner.uid === 'string' ? owner.uid : '';
    if (uid !== self.metadata?.uid) throw admissionForbidden(attrs, `node ${node} UID mismatch: expected ${uid} got ${self.metadata?.uid ?? ''}`);

    const spec = specOf(pod);
    if (typeof spec?.serviceAccountName === 'string' && spec.serviceAccountName !== '') {
      throw admissionForbidden(attrs, `node ${q} can not create pods that reference a service account`);
    }
    const refs = podReferences(spec);
    if (refs.secrets) throw admissionForbidden(attrs, `node ${q} can not create pods that reference secrets`);
    if (refs.configMaps) throw admissionForbidden(attrs, `node ${q} can not create pods that reference configmaps`);
    if (refs.claims) throw admissionForbidden(attrs, `node ${q} can not create pods that reference persistentvolumeclaims`);
  }

  private async admitPodEviction(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE') throw admissionForbidden(attrs, `unexpected operation ${attrs.operation}`);
    let podName = attrs.name;
    if (podName === '') {
      const named = attrs.object?.metadata?.name;
      if (typeof named !== 'string' || named === '') throw admissionForbidden(attrs, 'could not determine pod from request data');
      podName = named;
    }
    const existing = await this.existingPod(attrs, podName);
    if (nodeNameOf(existing) !== node) throw admissionForbidden(attrs, `node ${node} can only evict pods with spec.nodeName set to itself`);
  }

  private async admitServiceAccount(node: string, attrs: AdmissionAttributes): Promise<void> {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== 'token') return;
    const spec = specOf(attrs.object);
    const ref = isPlainObject(spec?.boundObjectRef) ? spec.boundObjectRef : undefined;
    if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || typeof ref.name !== 'string' || ref.name === '') {
      throw admissionForbidden(attrs, 'node requested token not bound to a pod');
    }
    if (typeof ref.uid !== 'string' || ref.uid === '') throw admissionForbidden(attrs, 'node requested token with a pod binding without a uid');
    const pod = await this.existingPod(attrs, ref.name);
    if (ref.uid !== pod.metadata?.uid) {
      throw admissionForbidden(attrs, `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (nodeNameOf(pod) !== node) throw admissionForbidden(attrs, 'node requested token bound to a pod scheduled on a different node');
  }
}

function admitPodStatus(node: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}`);
  const q = JSON.stringify(node);
  if (nodeNameOf(attrs.oldObject) !== node) throw admissionForbidden(attrs, `node ${q} can only update pod status for pods with spec.nodeName set to itself`);
  if (!deepEqual(labelsOf(attrs.oldObject), labelsOf(attrs.object))) throw admissionForbidden(attrs, `node ${q} cannot update labels through pod status`);
}

function admitNode(node: string, attrs: AdmissionAttributes): void {
  const q = JSON.stringify(node);
  if (attrs.name !== node) throw admissionForbidden(attrs, `node ${q} is not allowed to modify node ${JSON.stringify(attrs.name)}`);
  if (attrs.operation === 'CREATE') {
    const spec = specOf(attrs.object);
    if (spec?.configSource !== undefined && spec.configSource !== null) {
      throw admissionForbidden(attrs, `node ${q} is not allowed to create pods with a non-nil configSource`);
    }
    const forbidden = forbiddenNodeLabels(Object.keys(labelsOf(attrs.object)));
    if (forbidden.length > 0) throw admissionForbidden(attrs, `node ${q} is not allowed to set the following labels: ${forbidden.join(', ')}`);
  }
  if (attrs.operation === 'UPDATE') {
    const spec = specOf(attrs.object);
    const oldSpec = specOf(attrs.oldObject);
    const source = spec?.configSource;
    if (source !== undefined && source !== null && !deepEqual(source, oldSpec?.configSource)) {
      throw admissionForbidden(attrs, `node ${q} is not allowed to update configSource to a new non-nil configSource`);
    }
    if (!deepEqual(taintsOf(spec), taintsOf(oldSpec))) throw admissionForbidden(attrs, `node ${q} is not allowed to modify taints`);
    const forbidden = forbiddenNodeLabels(modifiedLabels(labelsOf(attrs.object), labelsOf(attrs.oldObject)));
    if (forbidden.length > 0) throw admissionForbidden(attrs, `is not allowed to modify labels: ${forbidden.join(', ')}`);
  }
}

/** Taints compared as Go compares the slices: an empty list equals an absent one. */
function taintsOf(spec: JsonMap | undefined): unknown[] {
  return Array.isArray(spec?.taints) ? spec.taints : [];
}

/** Of a claim, a node may change only `status.capacity` and `status.conditions`. */
function admitClaimStatus(node: string, attrs: AdmissionAttributes): void {
  if (attrs.operation !== 'UPDATE') throw admissionForbidden(attrs, `unexpected operation ${JSON.stringify(attrs.operation)}`);
  const strip = (o: KubeObject | undefined): JsonMap => {
    const copy = structuredClone(o ?? {}) as JsonMap;
    if (isPlainObject(copy.metadata)) {
      delete copy.metadata.resourceVersion;
      delete copy.metadata.managedFields;
    }
    if (isPlainObject(copy.status)) {
      delete copy.status.capacity;
      delete copy.status.conditions;
    }
    return copy;
  };
  const before = strip(attrs.oldObject);
  const after = strip(attrs.object);
  if (!deepEqual(before, after)) {
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !deepEqual(before[k], after[k])).sort();
    throw admissionForbidden(attrs, `node ${JSON.stringify(node)} is not allowed to update fields other than status.quantity and status.conditions: changed ${changed.join(', ')}`);
  }
}

function admitLease(node: string, attrs: AdmissionAttributes): void {
  const leases = systemNamespace('node-lease');
  if (attrs.namespace !== leases) throw admissionForbidden(attrs, `can only access leases in the ${JSON.stringify(leases)} system namespace`);
  const name = attrs.operation === 'CREATE' ? attrs.object?.metadata?.name : attrs.name;
  if (name !== node) throw admissionForbidden(attrs, 'can only access node lease with the same name as the requesting node');
}

function admitCSINode(node: string, attrs: AdmissionAttributes): void {
  const name = attrs.operation === 'CREATE' ? attrs.object?.metadata?.name : attrs.name;
  if (name !== node) throw admissionForbidden(attrs, 'can only access CSINode with the same name as the requesting node');
}
