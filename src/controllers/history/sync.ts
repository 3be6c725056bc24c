// The I/O half of the revision history: finds or makes the revision of an owner's current
// template, renumbering an older equal one (a rollback makes it the newest), and prunes.
import { isApiError } from '../../apimachinery/errors.js';
import type { LabelSelector } from '../../apimachinery/labels.js';
import { controllerOf, newControllerRef } from '../../apimachinery/owners.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { CONTROLLERREVISIONS, nextRevisionNumber, revisionNumber, revisionsToPrune, sameData, sortRevisions } from './revisions.js';

/** A revision name taken by other data: the owner's `status.collisionCount` must grow. */
export class RevisionCollision extends Error {
  constructor(name: string) {
    super(`controller revision ${name} exists with other data (hash collision)`);
  }
}

export interface RevisionPick {
  /** The revision of the owner's template now, created or renumbered as needed. */
  update: KubeObject;
  /** All of the owner's revisions after the pick, ascending. */
  revisions: KubeObject[];
}

/**
 * The update revision: an existing revision with `candidate`'s data (renumbered to be the newest
 * when it is not), else `candidate` created. Throws `RevisionCollision` when its name is taken
 * by other data.
 */
export async function pickUpdateRevision(client: ApiClient, owned: readonly KubeObject[], candidate: KubeObject): Promise<RevisionPick> {
  const revisions = sortRevisions(owned);
  const equal = revisions.filter((r) => sameData(r, candidate));
  const ns = candidate.metadata?.namespace ?? '';
  if (equal.length > 0) {
    const latest = equal[equal.length - 1];
    if (latest === revisions[revisions.length - 1]) return { update: latest, revisions };
    const renumbered = await client.patch(CONTROLLERREVISIONS, ns, latest.metadata?.name ?? '', { revision: nextRevisionNumber(revisions) });
    return { update: renumbered, revisions: sortRevisions(revisions.map((r) => (r === latest ? renumbered : r))) };
  }
  const name = candidate.metadata?.name ?? '';
  try {
    const created = await client.create(CONTROLLERREVISIONS, ns, { ...candidate, revision: Math.max(revisionNumber(candidate), nextRevisionNumber(revisions)) });
    return { update: created, revisions: sortRevisions([...revisions, created]) };
  } catch (err) {
    if (!(isApiError(err) && err.code === 409)) throw err;
    const existing = await client.get(CONTROLLERREVISIONS, ns, name);
    const ownerUid = candidate.metadata?.ownerReferences?.[0]?.uid;
    if (sameData(existing, candidate) && existing.metadata?.ownerReferences?.some((r) => r.uid === ownerUid && r.controller === true)) {
      return { update: existing, revisions: sortRevisions([...revisions.filter((r) => r.metadata?.name !== name), existing]) };
    }
    throw new RevisionCollision(name);
  }
}

/** Deletes the oldest unused revisions beyond `limit`. */
export async function pruneRevisions(client: ApiClient, revisions: readonly KubeObject[], inUse: ReadonlySet<string>, limit: number): Promise<void> {
  for (const r of revisionsToPrune(revisions, inUse, limit)) {
    await client
      .delete(CONTROLLERREVISIONS, r.metadata?.namespace ?? '', r.metadata?.name ?? '', { preconditions: { uid: r.metadata?.uid } })
      .catch((err: unknown) => {
        if (!(isApiError(err) && (err.code === 404 || err.code === 409))) throw err;
      });
  }
}

/**
 * The owner's revisions among `inNamespace`: its own, and orphans its selector matches, adopted
 * (kube's ClaimControllerRevisions: a set deleted with its dependents orphaned and made again
 * takes its history back).
 */
export async function claimRevisions(client: ApiClient, owner: KubeObject, apiVersion: string, kind: string, selector: LabelSelector, inNamespace: readonly KubeObject[]): Promise<KubeObject[]> {
  const uid = owner.metadata?.uid;
  const out: KubeObject[] = [];
  for (const r of inNamespace) {
    const ref = controllerOf(r);
    if (ref) {
      if (ref.uid === uid) out.push(r);
      continue;
    }
    if (owner.metadata?.deletionTimestamp || r.metadata?.deletionTimestamp || !selector.matches(r.metadata?.labels)) continue;
    try {
      out.push(
        await client.patch(CONTROLLERREVISIONS, r.metadata?.namespace ?? '', r.metadata?.name ?? '', {
          metadata: { ownerReferences: [...(r.metadata?.ownerReferences ?? []), newControllerRef(owner, apiVersion, kind)], uid: r.metadata?.uid, resourceVersion: r.metadata?.resourceVersion },
        }),
      );
    } catch (err) {
      if (!(isApiError(err) && (err.code === 404 || err.code === 409))) throw err;
    }
  }
  return out;
}
