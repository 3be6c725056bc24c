// The dependency graph of the garbage collector: one node per object uid seen by the
// informers (or named as an owner before it was seen: a "virtual" node whose existence the
// collector checks with the API). Pure bookkeeping: event processing returns what the
// collector should look at next, and never talks to the server.
import type { KubeObject } from '../../apimachinery/types.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

export interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Where an object lives: its owner-reference coordinates plus its namespace ('' when cluster-scoped). */
export interface Identity {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  namespace: string;
}

export interface GraphNode {
  identity: Identity;
  owners: readonly OwnerRef[];
  /** Shared and empty until the first dependent: most objects have none. */
  dependents: ReadonlySet<GraphNode>;
  /** Named as an owner but not (yet) seen by an informer. */
  virtual: boolean;
  beingDeleted: boolean;
  /** Being deleted with the foregroundDeletion finalizer: waits for blocking dependents. */
  deletingDependents: boolean;
}

/** What an event asks of the collector. */
export interface GraphWork {
  attemptToDelete: GraphNode[];
  attemptToOrphan: GraphNode[];
  /** A dependent names an owner observed in another namespace (reported, judged as absent). */
  invalidNamespace: { dependent: GraphNode; owner: OwnerRef }[];
}

function emptyWork(): GraphWork {
  return { attemptToDelete: [], attemptToOrphan: [], invalidNamespace: [] };
}

/** What a node without dependents or owners holds: an empty Set or array each is ~150 bytes a node. */
const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set();
const NO_OWNERS: readonly OwnerRef[] = Object.freeze([]);

export function ownerRefsOf(obj: KubeObject): readonly OwnerRef[] {
  const refs = obj.metadata?.ownerReferences;
  if (!Array.isArray(refs) || refs.length === 0) return NO_OWNERS;
  return refs.filter((r): r is OwnerRef => typeof r?.uid === 'string' && r.uid !== '') as OwnerRef[];
}

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return (obj.metadata?.finalizers ?? []).includes(finalizer);
}

export function identityOf(obj: KubeObject, apiVersion: string, kind: string): Identity {
  const m = obj.metadata ?? {};
  return { apiVersion, kind, name: m.name ?? '', uid: m.uid ?? '', namespace: m.namespace ?? '' };
}

/** Deletion with `finalizer` starts with this change (or the object is first seen so). */
function startsDeletionWith(oldObj: KubeObject | undefined, obj: KubeObject, finalizer: string): boolean {
  if (!obj.metadata?.deletionTimestamp || !hasFinalizer(obj, finalizer)) return false;
  if (!oldObj) return true;
  return !oldObj.metadata?.deletionTimestamp || !hasFinalizer(oldObj, finalizer);
}

/** Identity as Kubernetes prints it in events: `[apps/v1/Deployment, namespace: ns, name: n, uid: u]`. */
export function formatIdentity(i: Identity): string {
  return `[${i.apiVersion}/${i.kind}, namespace: ${i.namespace}, name: ${i.name}, uid: ${i.uid}]`;
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  size(): number {
    return this.nodes.size;
  }

  /** An add or update seen by an informer. */
  observe(oldObj: KubeObject | undefined, obj: KubeObject, identity: Identity): GraphWork {
    const work = emptyWork();
    const owners = ownerRefsOf(obj);
    const beingDeleted = !!obj.metadata?.deletionTimestamp;
    let node = this.nodes.get(identity.uid);
    if (!node) {
      node = { identity, owners, dependents: NO_DEPENDENTS, virtual: false, beingDeleted, deletingDependents: false };
      this.nodes.set(identity.uid, node);
      this.addToOwners(node, owners, work);
    } else {
      if (node.virtual) {
        // Seen at last: the dependents that named it may have guessed its coordinates wrong.
        node.virtual = false;
        node.identity = identity;
        for (const dep of node.dependents) {
          if (identity.namespace !== '' && dep.identity.namespace !== identity.namespace) {
            const ref = dep.owners.find((o) => o.uid === identity.uid);
            if (ref) work.invalidNamespace.push({ dependent: dep, owner: ref });
            work.attemptToDelete.push(dep);
          }
        }
      }
      const { added, removed, changed } = diffOwners(node.owners, owners);
      node.owners = owners;
      node.beingDeleted = beingDeleted;
      this.addToOwners(node, added, work);
      this.removeFromOwners(node, removed);
      // An owner waiting for blocking dependents looks again when one stops blocking.
      for (const ref of removed) if (ref.blockOwnerDeletion) this.push(work.attemptToDelete, ref.uid);
      for (const [was, now] of changed) if (was.blockOwnerDeletion && !now.blockOwnerDeletion) this.push(work.attemptToDelete, now.uid);
    }
    if (startsDeletionWith(oldObj, obj, ORPHAN_FINALIZER)) {
      work.attemptToOrphan.push(node);
    } else if (startsDeletionWith(oldObj, obj, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      work.attemptToDelete.push(...node.dependents, node);
    }
    if (!hasFinalizer(obj, FOREGROUND_FINALIZER)) node.deletingDependents = false;
    return work;
  }

  /** An object is gone (seen by an informer, or confirmed absent by the API for a virtual node). */
  remove(uid: string): GraphWork {
    const work = emptyWork();
    const node = this.nodes.get(uid);
    if (!node) return work;
    this.nodes.delete(uid);
    this.removeFromOwners(node, node.owners);
    work.attemptToDelete.push(...node.dependents);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      if (owner?.deletingDependents) work.attemptToDelete.push(owner);
    }
    return work;
  }

  /** Dependents whose reference to `owner` blocks its foreground deletion. */
  blockingDependents(owner: GraphNode): GraphNode[] {
    return [...owner.dependents].filter((d) => d.owners.some((o) => o.uid === owner.identity.uid && o.blockOwnerDeletion === true));
  }

  private push(list: GraphNode[], uid: string): void {
    const n = this.nodes.get(uid);
    if (n) list.push(n);
  }

  private addToOwners(node: GraphNode, owners: readonly OwnerRef[], work: GraphWork): void {
    let recheck = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (!owner) {
        owner = {
          identity: { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace: node.identity.namespace },
          owners: NO_OWNERS,
          dependents: NO_DEPENDENTS,
          virtual: true,
          beingDeleted: false,
          deletingDependents: false,
        };
        this.nodes.set(ref.uid, owner);
        addDependent(owner, node);
        // The collector asks the API whether it exists.
        work.attemptToDelete.push(owner);
        continue;
      }
      addDependent(owner, node);
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        if (!owner.virtual) work.invalidNamespace.push({ dependent: node, owner: ref });
        recheck = true;
      } else if (owner.identity.apiVersion !== ref.apiVersion || owner.identity.kind !== ref.kind || owner.identity.name !== ref.name) {
        recheck = true;
      } else if (!ownerNamespaced && node.identity.namespace !== '' && owner.virtual) {
        recheck = true;
      }
    }
    if (recheck) work.attemptToDelete.push(node);
  }

  private removeFromOwners(node: GraphNode, owners: readonly OwnerRef[]): void {
    for (const ref of owners) {
      const owner = this.nodes.get(ref.uid);
      if (!owner) continue;
      if (owner.dependents.has(node)) {
        if (owner.dependents.size === 1) owner.dependents = NO_DEPENDENTS;
        else (owner.dependents as Set<GraphNode>).delete(node);
      }
      // A virtual owner nobody names any more is forgotten.
      if (owner.virtual && owner.dependents.size === 0) this.nodes.delete(ref.uid);
    }
  }
}

function addDependent(owner: GraphNode, node: GraphNode): void {
  if (owner.dependents === NO_DEPENDENTS) owner.dependents = new Set([node]);
  else (owner.dependents as Set<GraphNode>).add(node);
}

function diffOwners(old: readonly OwnerRef[], next: readonly OwnerRef[]): { added: OwnerRef[]; removed: OwnerRef[]; changed: [OwnerRef, OwnerRef][] } {
  const before = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerRef[] = [];
  const changed: [OwnerRef, OwnerRef][] = [];
  for (const ref of next) {
    const was = before.get(ref.uid);
    if (!was) added.push(ref);
    else {
      if (JSON.stringify(was) !== JSON.stringify(ref)) changed.push([was, ref]);
      before.delete(ref.uid);
    }
  }
  return { added, removed: [...before.values()], changed };
}
