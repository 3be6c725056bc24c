// The Deployment controller (kube-controller-manager's `deployment`): one ReplicaSet per pod
// template (`<name>-<pod-template-hash>`), rolled out by RollingUpdate (maxSurge /
// maxUnavailable) or Recreate, scaled proportionally while paused or mid-rollout, with
// revisions kubectl's rollout commands read, old ReplicaSets pruned past
// revisionHistoryLimit, and the Progressing / Available conditions.
import { isApiError } from '../../apimachinery/errors.js';
import { labelSelectorAsSelector, type LabelSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';
import { controllerOf, newControllerRef } from '../../apimachinery/owners.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import { deepEqual } from '../../apimachinery/equality.js';
import { isPodTerminal } from '../../apis/core/helpers/pod.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import { byControllerUID, CLAIM_INDEXERS, claimCandidates, CONTROLLER_UID_INDEX, NAMESPACE_INDEX } from '../../client/indexes.js';
import { keyOf, splitKey } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext } from '../types.js';
import { computeHash } from './hash.js';
import {
  annotationsNotCopied,
  byCreation,
  bySize,
  DEFAULT_LABEL_KEY,
  deploymentAnnotation,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  dSpec,
  dStatus,
  hasProgressDeadline,
  intAnnotation,
  isRollingUpdate,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  proportion,
  quote,
  replicasOf,
  revisionOf,
  rsStatus,
  setCondition,
  sumSpec,
  sumStatus,
  templateWithoutHash,
  type Condition,
  type DeploymentStatus,
} from './util.js';

export const DEPLOYMENTS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'deployments' };
const REPLICASETS: GroupVersionResource = { group: 'apps', version: 'v1', resource: 'replicasets' };

export interface DeploymentControllerOptions {
  client: ApiClient;
  deployments: Informer;
  replicaSets: Informer;
  pods: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  onError: (err: unknown) => void;
}

function condition(type: string, status: string, reason: string, message: string, now: Date): Condition {
  const t = rfc3339(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

/** One sync's view of a Deployment: the object, with the status it is building. */
interface Work {
  d: KubeObject;
  conditions: Condition[];
  collisionCount?: number;
}

export class DeploymentController extends KeyedLoop {
  constructor(private readonly opts: DeploymentControllerOptions) {
    super(opts.clock, 'deployment');
    opts.replicaSets.addIndexers(CLAIM_INDEXERS);
    opts.pods.addIndexers({ [CONTROLLER_UID_INDEX]: byControllerUID });
    const enqueue = (o: KubeObject): void => this.add(keyOf(o));
    this.onStop(opts.deployments.addEventHandler({ onAdd: enqueue, onUpdate: (_o, n) => enqueue(n), onDelete: enqueue }));
    const rsChanged = (rs: KubeObject): void => {
      const key = this.ownerKey(rs);
      if (key) this.add(key);
      else if (!controllerOf(rs)) this.enqueueMatching(rs);
    };
    this.onStop(
      opts.replicaSets.addEventHandler({
        onAdd: rsChanged,
        onUpdate: (old, rs) => {
          const oldKey = this.ownerKey(old);
          if (oldKey && oldKey !== this.ownerKey(rs)) this.add(oldKey);
          rsChanged(rs);
        },
        onDelete: rsChanged,
      }),
    );
    // Recreate waits for the old pods to go.
    this.onStop(
      opts.pods.addEventHandler({
        onDelete: (pod) => {
          const ref = controllerOf(pod);
          if (ref?.kind !== 'ReplicaSet' || !pod.metadata?.namespace) return;
          const rs = opts.replicaSets.get(pod.metadata.namespace, ref.name);
          if (rs) rsChanged(rs as KubeObject);
        },
      }),
    );
  }

  start(workers: number): void {
    this.run((key) => this.sync(key), workers, this.opts.onError);
  }

  private ownerKey(rs: KubeObject): string | undefined {
    const ref = controllerOf(rs);
    if (ref?.kind !== 'Deployment' || !rs.metadata?.namespace) return undefined;
    const d = this.opts.deployments.get(rs.metadata.namespace, ref.name);
    return d && d.metadata?.uid === ref.uid ? `${rs.metadata.namespace}/${ref.name}` : undefined;
  }

  private enqueueMatching(rs: KubeObject): void {
    const ns = rs.metadata?.namespace ?? '';
    for (const d of this.opts.deployments.byIndex(NAMESPACE_INDEX, ns)) {
      try {
        if (selectorOf(d as KubeObject).matches(rs.metadata?.labels)) this.add(keyOf(d));
      } catch {
        // An invalid selector matches nothing.
      }
    }
  }

  private event(d: KubeObject, type: 'Normal' | 'Warning', reason: string, note: string, related?: KubeObject): void {
    this.opts.recorder.eventf(d, related, type, reason, reason, note);
  }

  async sync(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const d = this.opts.deployments.get(namespace, name);
    if (!d) return;
    const now = this.opts.clock.now();
    let selector: LabelSelector;
    try {
      selector = selectorOf(d);
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    if (selector.empty) {
      this.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if (dStatus(d).observedGeneration !== d.metadata?.generation) {
        await this.writeStatus(d, { ...dStatus(d), observedGeneration: d.metadata?.generation });
      }
      return;
    }
    const rsList = await this.claimReplicaSets(d, selector);
    const w: Work = { d, conditions: [...(dStatus(d).conditions ?? [])], collisionCount: dStatus(d).collisionCount };
    if (d.metadata?.deletionTimestamp) {
      const { newRS, oldRSs } = this.split(d, rsList);
      await this.writeStatus(d, this.calculateStatus(w, [...oldRSs, ...(newRS ? [newRS] : [])], newRS));
      return;
    }
    // Paused and resumed show in the Progressing condition.
    if (hasProgressDeadline(d)) {
      const cur = w.conditions.find((c) => c.type === 'Progressing');
      if (dSpec(d).paused && cur?.reason !== 'DeploymentPaused') {
        w.conditions = setCondition(w.conditions, condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', now));
      } else if (!dSpec(d).paused && cur?.reason === 'DeploymentPaused') {
        w.conditions = setCondition(w.conditions, condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', now));
      }
    }
    if (dSpec(d).paused || this.isScalingEvent(d, rsList)) {
      await this.scaleOnly(w, rsList);
      return;
    }
    if (isRollingUpdate(d)) await this.rolloutRolling(w, rsList);
    else await this.rolloutRecreate(w, rsList);
  }

  /** The ReplicaSets the Deployment controls, adopting matching orphans and releasing those it no longer matches. */
  private async claimReplicaSets(d: KubeObject, selector: LabelSelector): Promise<KubeObject[]> {
    const ns = d.metadata?.namespace ?? '';
    const uid = d.metadata?.uid;
    const out: KubeObject[] = [];
    for (const rs of claimCandidates(this.opts.replicaSets, ns, uid ?? '')) {
      const ref = controllerOf(rs);
      const matches = selector.matches(rs.metadata?.labels);
      if (ref) {
        if (ref.uid !== uid) continue;
        if (matches) out.push(rs);
        else if (!d.metadata?.deletionTimestamp) await this.patchOwners(rs, (rs.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid));
        continue;
      }
      if (!matches || d.metadata?.deletionTimestamp || rs.metadata?.deletionTimestamp) continue;
      const adopted = await this.patchOwners(rs, [...(rs.metadata?.ownerReferences ?? []), newControllerRef(d, 'apps/v1', 'Deployment')]);
      if (adopted) out.push(adopted);
    }
    return out;
  }

  private async patchOwners(rs: KubeObject, refs: NonNullable<KubeObject['metadata']>['ownerReferences']): Promise<KubeObject | undefined> {
    try {
      return await this.opts.client.patch(REPLICASETS, rs.metadata?.namespace ?? '', rs.metadata?.name ?? '', {
        metadata: { ownerReferences: refs && refs.length > 0 ? refs : null, uid: rs.metadata?.uid, resourceVersion: rs.metadata?.resourceVersion },
      });
    } catch (err) {
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return undefined;
      throw err;
    }
  }

  /** The ReplicaSet of the current template (the oldest, if several) and the others. */
  private split(d: KubeObject, rsList: KubeObject[]): { newRS: KubeObject | undefined; oldRSs: KubeObject[] } {
    const want = templateWithoutHash(dSpec(d).template);
    const sorted = [...rsList].sort(byCreation);
    const newRS = sorted.find((rs) => deepEqual(templateWithoutHash((rs.spec as { template?: unknown }).template), want));
    return { newRS, oldRSs: sorted.filter((rs) => rs !== newRS) };
  }

  private isScalingEvent(d: KubeObject, rsList: KubeObject[]): boolean {
    for (const rs of rsList) {
      if (replicasOf(rs) <= 0) continue;
      const desired = intAnnotation(rs, deploymentAnnotation('desired-replicas'));
      if (desired !== undefined && desired !== replicasOf(d)) return true;
    }
    return false;
  }

  /**
   * The new ReplicaSet (revision brought up to date; created when `create` and missing) and
   * the old ones; the Deployment's revision annotation follows the new one.
   */
  private async newAndOld(w: Work, rsList: KubeObject[], create: boolean): Promise<{ newRS: KubeObject | undefined; oldRSs: KubeObject[] }> {
    const { d } = w;
    const { newRS: existing, oldRSs } = this.split(d, rsList);
    const maxOld = Math.max(0, ...oldRSs.map(revisionOf));
    const revision = String(maxOld + 1);
    const now = this.opts.clock.now();
    let newRS = existing;
    if (existing) {
      const annotations = this.rsAnnotations(d, existing, revision, true);
      const minReady = dSpec(d).minReadySeconds ?? 0;
      const rsMinReady = (existing.spec as { minReadySeconds?: number }).minReadySeconds ?? 0;
      if (!deepEqual(annotations, existing.metadata?.annotations ?? {}) || minReady !== rsMinReady) {
        newRS = await this.opts.client.update(REPLICASETS, existing.metadata?.namespace ?? '', {
          ...existing,
          metadata: { ...existing.metadata, annotations },
          spec: { ...(existing.spec as object), minReadySeconds: minReady },
        });
      }
      if (hasProgressDeadline(d) && !w.conditions.some((c) => c.type === 'Progressing')) {
        w.conditions = setCondition(w.conditions, condition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set ${quote(existing.metadata?.name ?? '')}`, now));
      }
    } else if (create) {
      newRS = await this.createNewRS(w, rsList, oldRSs, revision);
    }
    if (newRS) await this.syncDeploymentRevision(w, newRS.metadata?.annotations?.[deploymentAnnotation('revision')] ?? revision);
    return { newRS, oldRSs };
  }

  /** The annotations a ReplicaSet of `d` carries: the Deployment's own (some excepted), the revision, the replica counts. */
  private rsAnnotations(d: KubeObject, rs: KubeObject | undefined, revision: string, exists: boolean): Record<string, string> {
    const out: Record<string, string> = { ...(rs?.metadata?.annotations ?? {}) };
    const skip = new Set(annotationsNotCopied());
    for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) if (!skip.has(k)) out[k] = v;
    const revKey = deploymentAnnotation('revision');
    const old = out[revKey];
    if (old === undefined || Number(old) < Number(revision)) {
      out[revKey] = revision;
      // An old ReplicaSet brought back (rollout undo) keeps the revisions it had.
      if (old !== undefined && old !== '') {
        const histKey = deploymentAnnotation('revision-history');
        out[histKey] = out[histKey] ? `${out[histKey]},${old}` : old;
      }
    }
    if (!exists) {
      out[deploymentAnnotation('desired-replicas')] = String(replicasOf(d));
      out[deploymentAnnotation('max-replicas')] = String(replicasOf(d) + maxSurge(d));
    }
    return out;
  }

  private async syncDeploymentRevision(w: Work, revision: string): Promise<void> {
    const key = deploymentAnnotation('revision');
    if (w.d.metadata?.annotations?.[key] === revision) return;
    // Through the status subresource, as kube does: the annotation is no spec change (no new generation).
    const updated = await this.opts.client.patch(
      DEPLOYMENTS,
      w.d.metadata?.namespace ?? '',
      w.d.metadata?.name ?? '',
      { metadata: { annotations: { [key]: revision }, resourceVersion: w.d.metadata?.resourceVersion } },
      'status',
    );
    w.d = { ...w.d, metadata: { ...w.d.metadata, annotations: updated.metadata?.annotations, resourceVersion: updated.metadata?.resourceVersion } };
  }

  private async createNewRS(w: Work, rsList: KubeObject[], oldRSs: KubeObject[], revision: string): Promise<KubeObject | undefined> {
    const { d } = w;
    const spec = dSpec(d);
    const now = this.opts.clock.now();
    const hash = computeHash(spec.template, w.collisionCount);
    const template = structuredClone(spec.template ?? {});
    template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [DEFAULT_LABEL_KEY]: hash } };
    const selector = structuredClone(spec.selector ?? {});
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [DEFAULT_LABEL_KEY]: hash };
    const name = `${d.metadata?.name ?? ''}-${hash}`;
    const draft: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: d.metadata?.namespace,
        labels: { ...(template.metadata.labels ?? {}) },
        ownerReferences: [newControllerRef(d, 'apps/v1', 'Deployment')],
      },
      spec: { replicas: 0, minReadySeconds: spec.minReadySeconds ?? 0, selector, template },
    };
    const replicas = newRSNewReplicas(d, oldRSs, draft);
    (draft.spec as { replicas: number }).replicas = replicas;
    draft.metadata!.annotations = this.rsAnnotations(d, undefined, revision, false);
    let created: KubeObject;
    try {
      created = await this.opts.client.create(REPLICASETS, d.metadata?.namespace ?? '', draft);
    } catch (err) {
      if (isApiError(err) && err.code === 409 && err.status.reason === 'AlreadyExists') {
        const found = await this.opts.client.get(REPLICASETS, d.metadata?.namespace ?? '', name);
        // Ours, with our template: the cache had not seen it yet.
        if (controllerOf(found)?.uid === d.metadata?.uid && deepEqual(templateWithoutHash((found.spec as { template?: unknown }).template), templateWithoutHash(spec.template))) {
          return found;
        }
        // A hash collision: a new name next time.
        w.collisionCount = (w.collisionCount ?? 0) + 1;
        await this.writeStatus(d, { ...dStatus(d), conditions: w.conditions, collisionCount: w.collisionCount });
        throw err;
      }
      if (hasProgressDeadline(d)) {
        const msg = `Failed to create new replica set ${quote(name)}: ${(err as Error).message}`;
        w.conditions = setCondition(w.conditions, condition('Progressing', 'False', 'ReplicaSetCreateError', msg, now));
        await this.writeStatus(d, { ...dStatus(d), conditions: w.conditions });
        this.event(d, 'Warning', 'ReplicaSetCreateError', msg);
      }
      throw err;
    }
    if (replicas > 0) this.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} to ${replicas}`, created);
    if (hasProgressDeadline(d)) {
      w.conditions = setCondition(w.conditions, condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set ${quote(name)}`, now));
    }
    rsList.push(created);
    return created;
  }

  /** Sets a ReplicaSet's size and replica annotations; true when its size changed. */
  private async scaleReplicaSet(rs: KubeObject, scale: number, d: KubeObject, operation?: string): Promise<KubeObject> {
    const sizeChanges = replicasOf(rs) !== scale;
    const annotations = { ...(rs.metadata?.annotations ?? {}) };
    annotations[deploymentAnnotation('desired-replicas')] = String(replicasOf(d));
    annotations[deploymentAnnotation('max-replicas')] = String(replicasOf(d) + maxSurge(d));
    if (!sizeChanges && deepEqual(annotations, rs.metadata?.annotations ?? {})) return rs;
    const updated = await this.opts.client.update(REPLICASETS, rs.metadata?.namespace ?? '', {
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...(rs.spec as object), replicas: scale },
    });
    if (sizeChanges) {
      const op = operation ?? (replicasOf(rs) < scale ? 'up' : 'down');
      this.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata?.name ?? ''} to ${scale}`, updated);
    }
    return updated;
  }

  private async scaleAndRecord(rs: KubeObject, scale: number, d: KubeObject): Promise<{ changed: boolean; rs: KubeObject }> {
    if (replicasOf(rs) === scale) return { changed: false, rs };
    return { changed: true, rs: await this.scaleReplicaSet(rs, scale, d) };
  }

  /** Paused, or only `spec.replicas` changed: scale the ReplicaSets, no rollout. */
  private async scaleOnly(w: Work, rsList: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(w, rsList, false);
    await this.scale(w.d, newRS, oldRSs);
    if (dSpec(w.d).paused) await this.cleanup(w.d, oldRSs);
    const all = this.refreshed([...oldRSs, ...(newRS ? [newRS] : [])]);
    const fresh = all.find((r) => r.metadata?.uid === newRS?.metadata?.uid);
    await this.writeStatus(w.d, this.calculateStatus(w, all, fresh));
  }

  /** The ReplicaSets as the cache holds them now (after this sync's own writes, where seen). */
  private refreshed(rss: KubeObject[]): KubeObject[] {
    return rss.map((rs) => {
      const c = this.opts.replicaSets.get(rs.metadata?.namespace ?? '', rs.metadata?.name ?? '');
      return c && Number(c.metadata?.resourceVersion) > Number(rs.metadata?.resourceVersion) ? c : rs;
    });
  }

  private async scale(d: KubeObject, newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
    const want = replicasOf(d);
    const active = (rss: KubeObject[]): KubeObject[] => rss.filter((r) => replicasOf(r) > 0);
    // One active ReplicaSet (or none: the newest) takes the whole count.
    const allActive = active([...oldRSs, ...(newRS ? [newRS] : [])]);
    let only: KubeObject | undefined;
    if (allActive.length === 1) only = allActive[0];
    else if (allActive.length === 0) only = newRS ?? [...oldRSs].sort(byCreation).at(-1);
    if (allActive.length <= 1) {
      if (only && replicasOf(only) !== want) await this.scaleAndRecord(only, want, d);
      return;
    }
    // A saturated new ReplicaSet: the old ones go to zero.
    if (newRS && replicasOf(newRS) === want && intAnnotation(newRS, deploymentAnnotation('desired-replicas')) === want && (rsStatus(newRS).availableReplicas ?? 0) === want) {
      for (const old of active(oldRSs)) await this.scaleAndRecord(old, 0, d);
      return;
    }
    if (!isRollingUpdate(d)) return;
    const allowed = want > 0 ? want + maxSurge(d) : 0;
    const toAdd = allowed - sumSpec(allActive);
    const operation = toAdd > 0 ? 'up' : toAdd < 0 ? 'down' : undefined;
    const sorted = operation ? [...allActive].sort(bySize(toAdd > 0)) : allActive;
    let added = 0;
    const sizes = new Map<KubeObject, number>();
    for (const rs of sorted) {
      if (toAdd !== 0) {
        const p = proportion(rs, d, toAdd, added);
        sizes.set(rs, replicasOf(rs) + p);
        added += p;
      } else sizes.set(rs, replicasOf(rs));
    }
    for (let i = 0; i < sorted.length; i++) {
      const rs = sorted[i];
      let size = sizes.get(rs) ?? 0;
      // Leftovers go to the largest.
      if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
      await this.scaleReplicaSet(rs, size, d, operation);
    }
  }

  private async rolloutRolling(w: Work, rsList: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.newAndOld(w, rsList, true);
    if (!newRS) return;
    const d = w.d;
    const all = (): KubeObject[] => [...oldRSs, newRS];
    // Scale up the new ReplicaSet as far as maxSurge allows.
    if (replicasOf(newRS) !== replicasOf(d)) {
      const target = replicasOf(newRS) > replicasOf(d) ? replicasOf(d) : newRSNewReplicas(d, all(), newRS);
      const r = await this.scaleAndRecord(newRS, target, d);
      if (r.changed) {
        await this.syncRolloutStatus(w, [...oldRSs, r.rs], r.rs);
        return;
      }
    }
    // Scale down old ReplicaSets as far as maxUnavailable allows.
    if (await this.reconcileOld(d, oldRSs, newRS)) {
      await this.syncRolloutStatus(w, this.refreshed(all()), newRS);
      return;
    }
    const status = this.calculateStatus(w, all(), newRS);
    if (deploymentComplete(d, status)) await this.cleanup(d, oldRSs);
    await this.syncRolloutStatus(w, all(), newRS);
  }

  /** kube's reconcileOldReplicaSets: unhealthy old replicas first, then healthy ones down to minAvailable. */
  private async reconcileOld(d: KubeObject, oldRSs: KubeObject[], newRS: KubeObject): Promise<boolean> {
    if (sumSpec(oldRSs) === 0) return false;
    const minAvailable = replicasOf(d) - maxUnavailable(d);
    const newUnavailable = replicasOf(newRS) - (rsStatus(newRS).availableReplicas ?? 0);
    const maxScaledDown = sumSpec([...oldRSs, newRS]) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    let total = 0;
    const olds = [...oldRSs].sort(byCreation);
    for (let i = 0; i < olds.length && total < maxScaledDown; i++) {
      const rs = olds[i];
      const unhealthy = replicasOf(rs) - (rsStatus(rs).availableReplicas ?? 0);
      if (replicasOf(rs) === 0 || unhealthy <= 0) continue;
      const down = Math.min(maxScaledDown - total, unhealthy);
      olds[i] = await this.scaleReplicaSet(rs, replicasOf(rs) - down, d);
      total += down;
    }
    // Healthy replicas, oldest ReplicaSets first, while availability stays above minAvailable.
    const available = sumStatus([...olds, newRS], 'availableReplicas');
    let healthyDown = 0;
    if (available > minAvailable) {
      const budget = available - minAvailable;
      for (let i = 0; i < olds.length && healthyDown < budget; i++) {
        const rs = olds[i];
        if (replicasOf(rs) === 0) continue;
        const down = Math.min(replicasOf(rs), budget - healthyDown);
        olds[i] = await this.scaleReplicaSet(rs, replicasOf(rs) - down, d);
        healthyDown += down;
      }
    }
    oldRSs.splice(0, oldRSs.length, ...olds);
    return total + healthyDown > 0;
  }

  private async rolloutRecreate(w: Work, rsList: KubeObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.newAndOld(w, rsList, false);
    const d = w.d;
    // Old ReplicaSets to zero first, and wait until their pods are gone.
    let scaledDown = false;
    for (let i = 0; i < oldRSs.length; i++) {
      if (replicasOf(oldRSs[i]) === 0) continue;
      oldRSs[i] = await this.scaleReplicaSet(oldRSs[i], 0, d);
      scaledDown = true;
    }
    if (scaledDown || this.oldPodsRunning(oldRSs)) {
      await this.syncRolloutStatus(w, [...oldRSs, ...(newRS ? [newRS] : [])], newRS);
      return;
    }
    if (!newRS) ({ newRS, oldRSs } = await this.newAndOld(w, rsList, true));
    if (!newRS) return;
    const r = await this.scaleAndRecord(newRS, replicasOf(d), d);
    newRS = r.rs;
    const status = this.calculateStatus(w, [...oldRSs, newRS], newRS);
    if (deploymentComplete(d, status)) await this.cleanup(d, oldRSs);
    await this.syncRolloutStatus(w, [...oldRSs, newRS], newRS);
  }

  private oldPodsRunning(oldRSs: KubeObject[]): boolean {
    if (sumStatus(oldRSs, 'replicas') > 0) return true;
    const uids = new Set(oldRSs.map((r) => r.metadata?.uid));
    const ns = oldRSs[0]?.metadata?.namespace;
    if (ns === undefined) return false;
    for (const uid of uids) {
      if (!uid) continue;
      for (const p of this.opts.pods.byIndex(CONTROLLER_UID_INDEX, uid)) if ((p.metadata?.namespace ?? '') === ns && !isPodTerminal(p as KubeObject)) return true;
    }
    return false;
  }

  /** Deletes old ReplicaSets with no replicas past `revisionHistoryLimit`, lowest revision first. */
  private async cleanup(d: KubeObject, oldRSs: KubeObject[]): Promise<void> {
    const limit = dSpec(d).revisionHistoryLimit;
    if (typeof limit !== 'number') return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (let i = 0; i < diff; i++) {
      const rs = cleanable[i];
      const st = rsStatus(rs);
      if ((st.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata?.generation ?? 0) > (st.observedGeneration ?? 0)) continue;
      try {
        await this.opts.client.delete(REPLICASETS, rs.metadata?.namespace ?? '', rs.metadata?.name ?? '', { preconditions: { uid: rs.metadata?.uid } } as never);
      } catch (err) {
        if (!(isApiError(err) && err.code === 404)) throw err;
      }
    }
  }

  private calculateStatus(w: Work, all: KubeObject[], newRS: KubeObject | undefined): DeploymentStatus {
    const { d } = w;
    const available = sumStatus(all, 'availableReplicas');
    const status: DeploymentStatus = {
      observedGeneration: d.metadata?.generation,
      replicas: sumStatus(all, 'replicas'),
      updatedReplicas: newRS ? sumStatus([newRS], 'replicas') : 0,
      readyReplicas: sumStatus(all, 'readyReplicas'),
      availableReplicas: available,
      unavailableReplicas: Math.max(0, sumSpec(all) - available),
      ...(w.collisionCount !== undefined ? { collisionCount: w.collisionCount } : {}),
    };
    const now = this.opts.clock.now();
    const cond =
      available >= replicasOf(d) - maxUnavailable(d)
        ? condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now)
        : condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now);
    w.conditions = setCondition(w.conditions, cond);
    status.conditions = w.conditions;
    return status;
  }

  private async syncRolloutStatus(w: Work, all: KubeObject[], newRS: KubeObject | undefined): Promise<void> {
    const { d } = w;
    const status = this.calculateStatus(w, all, newRS);
    const now = this.opts.clock.now();
    let conditions = status.conditions ?? [];
    if (!hasProgressDeadline(d)) conditions = conditions.filter((c) => c.type !== 'Progressing');
    const cur = conditions.find((c) => c.type === 'Progressing');
    const complete = status.replicas === status.updatedReplicas && cur?.reason === 'NewReplicaSetAvailable';
    const rsName = newRS?.metadata?.name;
    if (hasProgressDeadline(d) && !complete) {
      if (deploymentComplete(d, status)) {
        const msg = rsName ? `ReplicaSet ${quote(rsName)} has successfully progressed.` : `Deployment ${quote(d.metadata?.name ?? '')} has successfully progressed.`;
        conditions = setCondition(conditions, condition('Progressing', 'True', 'NewReplicaSetAvailable', msg, now));
      } else if (deploymentProgressing(d, status)) {
        const msg = rsName ? `ReplicaSet ${quote(rsName)} is progressing.` : `Deployment ${quote(d.metadata?.name ?? '')} is progressing.`;
        const c = condition('Progressing', 'True', 'ReplicaSetUpdated', msg, now);
        // Progress moves lastUpdateTime even when the reason stays.
        if (cur?.status === 'True') c.lastTransitionTime = cur.lastTransitionTime;
        conditions = [...conditions.filter((x) => x.type !== 'Progressing'), c];
      } else if (deploymentTimedOut(d, { ...status, conditions }, now.getTime())) {
        const msg = rsName ? `ReplicaSet ${quote(rsName)} has timed out progressing.` : `Deployment ${quote(d.metadata?.name ?? '')} has timed out progressing.`;
        conditions = setCondition(conditions, condition('Progressing', 'False', 'ProgressDeadlineExceeded', msg, now));
      }
    }
    // A ReplicaSet's failure to create pods shows on the Deployment.
    const failure = all.flatMap((rs) => rsStatus(rs).conditions ?? []).find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
    if (failure) conditions = setCondition(conditions, condition('ReplicaFailure', 'True', failure.reason ?? '', failure.message ?? '', now));
    else conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
    w.conditions = conditions;
    status.conditions = conditions;
    await this.writeStatus(d, status);
    // Look again at the deadline while the rollout is neither complete nor timed out.
    const prog = conditions.find((c) => c.type === 'Progressing');
    const key = keyOf(d);
    if (hasProgressDeadline(d) && prog && prog.reason !== 'NewReplicaSetAvailable' && prog.reason !== 'ProgressDeadlineExceeded' && !deploymentComplete(d, status)) {
      const at = Date.parse(prog.lastUpdateTime ?? '') + (dSpec(d).progressDeadlineSeconds ?? 0) * 1000;
      if (Number.isFinite(at)) this.wakeAfter(key, Math.max(0, at - now.getTime()) + 1000);
    } else this.cancelWake(key);
  }

  private async writeStatus(d: KubeObject, status: DeploymentStatus): Promise<void> {
    const clean = Object.fromEntries(Object.entries(status).filter(([, v]) => v !== undefined));
    if (sameStatus(d.status, clean)) return;
    const ns = d.metadata?.namespace ?? '';
    try {
      await this.opts.client.update(DEPLOYMENTS, ns, { ...d, status: clean }, 'status');
    } catch (err) {
      if (!(isApiError(err) && err.code === 409)) throw err;
      // The cache lags this controller's own writes: once more over a fresh read.
      const fresh = await this.opts.client.get(DEPLOYMENTS, ns, d.metadata?.name ?? '');
      if (fresh.metadata?.uid !== d.metadata?.uid || fresh.metadata?.generation !== d.metadata?.generation) throw err;
      await this.opts.client.update(DEPLOYMENTS, ns, { ...fresh, status: clean }, 'status');
    }
  }
}

function sameStatus(a: unknown, b: Record<string, unknown>): boolean {
  const x = (a ?? {}) as Record<string, unknown>;
  const keys = new Set([...Object.keys(x), ...Object.keys(b)]);
  for (const k of keys) {
    const va = x[k] ?? (k === 'conditions' ? [] : 0);
    const vb = b[k] ?? (k === 'conditions' ? [] : 0);
    if (!deepEqual(va, vb)) return false;
  }
  return true;
}

export function selectorOf(d: KubeObject): LabelSelector {
  return labelSelectorAsSelector((d.spec as { selector?: LabelSelectorObject } | undefined)?.selector);
}
