// The PVC protection controller (kube-controller-manager's `pvc-protection`): the
// StorageObjectInUseProtection admission plugin puts the `pvc-protection` finalizer on every
// claim; this controller takes it off a claim being deleted once no pod uses the claim, and
// puts it back on a live claim that lacks it (claims created while the plugin was off).
//
// "Uses", as Kubernetes 1.27 decides it: a pod scheduled to a node (a node agent only starts
// scheduled pods, and refuses a claim that is being deleted) whose volumes name the claim
// (`persistentVolumeClaim.claimName`), or whose generic ephemeral volume `<pod>-<volume>` is
// this claim and the claim is controlled by that pod, unless the pod has been shut down
// (deleted with a zero grace period). A pod's phase does not matter: only its removal frees
// the claim. The pod informer answers first; when it finds no user, a live list of the
// namespace's pods confirms it, since a new pod may not have reached the informer yet.
import type { GroupVersionResource, KubeObject } from '../../../apimachinery/types.js';
import { isApiError } from '../../../apimachinery/errors.js';
import type { Informer } from '../../../client/informer.js';
import { keyOf, splitKey } from '../../../client/informer.js';
import type { ApiClient } from '../../../client/types.js';
import { longDomainKey } from '../../../naming/index.js';
import { KeyedLoop } from '../../keyed-loop.js';
import type { ControllerContext, ControllerDescriptor } from '../../types.js';
import { isDeletionCandidate, needToAddFinalizer, withFinalizer, withoutFinalizer } from '../protection.js';

export const PVCS: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
export const PODS: GroupVersionResource = { group: '', version: 'v1', resource: 'pods' };

/** `kubernetes.io/pvc-protection` in the flavor of the running server. */
export function pvcProtectionFinalizer(): string {
  return longDomainKey('pvc-protection');
}

interface Volume {
  name?: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

function volumesOf(pod: KubeObject): Volume[] {
  const volumes = (pod.spec as { volumes?: unknown } | undefined)?.volumes;
  return Array.isArray(volumes) ? volumes.filter((v): v is Volume => v !== null && typeof v === 'object') : [];
}

function nodeNameOf(pod: KubeObject): string {
  const n = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
  return typeof n === 'string' ? n : '';
}

/** The claims a pod's volumes name (persistentVolumeClaim, and `<pod>-<volume>` for generic ephemeral volumes). */
export function claimNames(pod: KubeObject): string[] {
  const out: string[] = [];
  for (const v of volumesOf(pod)) {
    const claim = v.persistentVolumeClaim?.claimName;
    if (typeof claim === 'string' && claim !== '') out.push(claim);
    else if (v.ephemeral && typeof v.name === 'string') out.push(`${pod.metadata?.name ?? ''}-${v.name}`);
  }
  return out;
}

/** Deleted with a zero grace period: its node agent is done with it, or it was force-deleted. */
export function podIsShutDown(pod: KubeObject): boolean {
  const m = pod.metadata ?? {};
  return Boolean(m.deletionTimestamp) && m.deletionGracePeriodSeconds !== undefined && m.deletionGracePeriodSeconds !== null && Number(m.deletionGracePeriodSeconds) === 0;
}

function controlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata?.uid;
  return Boolean(uid) && (obj.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

/** Whether `pod` keeps `claim` in use (see the header). */
export function podUsesClaim(pod: KubeObject, claim: KubeObject): boolean {
  if (nodeNameOf(pod) === '') return false;
  const name = claim.metadata?.name ?? '';
  for (const v of volumesOf(pod)) {
    if (v.persistentVolumeClaim?.claimName === name) return true;
    if (v.ephemeral && !podIsShutDown(pod) && `${pod.metadata?.name ?? ''}-${v.name ?? ''}` === name && controlledBy(claim, pod)) return true;
  }
  return false;
}

interface ContainerStatus {
  state?: { terminated?: unknown; waiting?: unknown };
}

function notRunning(statuses: unknown): boolean {
  if (!Array.isArray(statuses)) return true;
  return statuses.every((s: ContainerStatus | null) => Boolean(s?.state?.terminated) || Boolean(s?.state?.waiting));
}

/** Finished (Succeeded or Failed), or being deleted with no container running. */
export function podIsTerminated(pod: KubeObject): boolean {
  const status = (pod.status ?? {}) as { phase?: unknown; containerStatuses?: unknown; initContainerStatuses?: unknown; ephemeralContainerStatuses?: unknown };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return true;
  return Boolean(pod.metadata?.deletionTimestamp) && notRunning(status.initContainerStatuses) && notRunning(status.containerStatuses) && notRunning(status.ephemeralContainerStatuses);
}

export interface PVCProtectionOptions {
  client: ApiClient;
  claims: Informer;
  pods: Informer;
  clock: ControllerContext['clock'];
  onError: (err: unknown) => void;
}

export class PVCProtectionController extends KeyedLoop {
  /** `<namespace>/<claim>` to the keys of the pods whose volumes name it (the informer has no indexes). */
  private readonly podsByClaim = new Map<string, Set<string>>();
  /** A pod's key to the claim keys it was indexed under. */
  private readonly claimsByPod = new Map<string, string[]>();

  constructor(private readonly opts: PVCProtectionOptions) {
    super(opts.clock, 'pvcprotection');
    const onClaim = (claim: KubeObject): void => {
      const f = pvcProtectionFinalizer();
      if (needToAddFinalizer(claim, f) || isDeletionCandidate(claim, f)) this.add(keyOf(claim));
    };
    this.onStop(opts.claims.addEventHandler({ onAdd: onClaim, onUpdate: (_old, claim) => onClaim(claim) }));
    this.onStop(
      opts.pods.addEventHandler({
        onAdd: (pod) => this.podChanged(pod, false),
        onUpdate: (old, pod) => {
          this.podChanged(pod, false);
          // An update may hide the deletion of a pod and the creation of another of the same name.
          if (old.metadata?.uid !== pod.metadata?.uid) this.enqueueClaims(old, true);
        },
        onDelete: (pod) => this.podChanged(pod, true),
      }),
    );
  }

  start(): void {
    this.run(async (key) => {
      if (await this.synced(this.opts.claims, this.opts.pods)) await this.sync(key);
    }, 1, this.opts.onError);
  }

  private podChanged(pod: KubeObject, deleted: boolean): void {
    const podKey = keyOf(pod);
    for (const claimKey of this.claimsByPod.get(podKey) ?? []) {
      const set = this.podsByClaim.get(claimKey);
      set?.delete(podKey);
      if (set?.size === 0) this.podsByClaim.delete(claimKey);
    }
    this.claimsByPod.delete(podKey);
    if (!deleted) {
      const ns = pod.metadata?.namespace ?? '';
      const keys = [...new Set(claimNames(pod).map((c) => `${ns}/${c}`))];
      if (keys.length > 0) this.claimsByPod.set(podKey, keys);
      for (const k of keys) {
        let set = this.podsByClaim.get(k);
        if (!set) this.podsByClaim.set(k, (set = new Set()));
        set.add(podKey);
      }
    }
    this.enqueueClaims(pod, deleted);
  }

  /** Queues the claims of a pod that may have stopped using them (gone, finished, or never scheduled). */
  private enqueueClaims(pod: KubeObject, deleted: boolean): void {
    if (!deleted && !podIsTerminated(pod) && nodeNameOf(pod) !== '') return;
    const ns = pod.metadata?.namespace ?? '';
    for (const claim of claimNames(pod)) this.add(`${ns}/${claim}`);
  }

  async sync(key: string): Promise<void> {
    const claim = this.opts.claims.getByKey(key);
    if (!claim) return;
    const f = pvcProtectionFinalizer();
    if (isDeletionCandidate(claim, f)) {
      if (!(await this.inUse(key, claim))) {
        await this.write(withoutFinalizer(claim, f));
        return;
      }
    }
    if (needToAddFinalizer(claim, f)) await this.write(withFinalizer(claim, f));
  }

  private async inUse(key: string, claim: KubeObject): Promise<boolean> {
    for (const podKey of this.podsByClaim.get(key) ?? []) {
      const { namespace, name } = splitKey(podKey);
      const pod = this.opts.pods.get(namespace, name);
      if (pod && podUsesClaim(pod, claim)) return true;
    }
    // The informer may not have seen a pod created a moment ago: a live list settles it.
    const { namespace } = splitKey(key);
    const live = await this.opts.client.list(PODS, namespace);
    return live.items.some((pod) => podUsesClaim(pod, claim));
  }

  private async write(claim: KubeObject): Promise<void> {
    try {
      await this.opts.client.update(PVCS, claim.metadata?.namespace ?? '', claim);
    } catch (err) {
      // Gone already: nothing holds it any more.
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
  }
}

export const pvcProtectionControllerDescriptor: ControllerDescriptor = {
  name: 'pvc-protection',
  requires: [
    { group: '', resource: 'persistentvolumeclaims' },
    { group: '', resource: 'pods' },
  ],
  start(ctx) {
    const controller = new PVCProtectionController({
      client: ctx.client,
      claims: ctx.informers.informerFor(PVCS),
      pods: ctx.informers.informerFor(PODS),
      clock: ctx.clock,
      onError: ctx.onError,
    });
    controller.start();
    return controller;
  },
};
