// The persistent volume binder (kube-controller-manager's `persistentvolume-binder`), static
// binding only: a Pending claim gets the best Available volume (binding.ts decides which),
// written in Kubernetes' order (volume's claimRef, volume Bound, claim's volumeName and
// annotations, claim Bound) so that a pass cut short anywhere is finished by the next one.
// A volume whose claim is gone is Released and then kept (Retain) or deleted (Delete). Claims
// of a `WaitForFirstConsumer` class wait for the scheduler's selected-node annotation. There
// is no provisioner here: a claim of a class with one waits for it, as in Kubernetes.
import { isApiError } from '../../apimachinery/errors.js';
import type { GroupVersionResource, KubeObject } from '../../apimachinery/types.js';
import type { EventRecorder } from '../../client/events.js';
import type { Informer } from '../../client/informer.js';
import type { ApiClient } from '../../client/types.js';
import { fromKubernetesGroup, longDomain } from '../../naming/index.js';
import { KeyedLoop } from '../keyed-loop.js';
import type { ControllerContext, ControllerDescriptor } from '../types.js';
import {
  bindCompletedAnnotation,
  boundByControllerAnnotation,
  claimKey,
  claimSpec,
  findBestMatch,
  isVolumeBoundToClaim,
  phaseOf,
  reclaimAction,
  selectedNodeAnnotation,
  storageClassOf,
  storageProvisionerAnnotations,
  volumeMismatch,
  volumeSpec,
  type ClaimRef,
} from './binding.js';

export const COMPONENT = 'persistentvolume-controller';
export const PVS: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };
export const PVCS: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumeclaims' };
const NODES: GroupVersionResource = { group: '', version: 'v1', resource: 'nodes' };
/** Computed when called: the storage group's served name depends on the flavor. */
export function storageClassesResource(): GroupVersionResource {
  return { group: fromKubernetesGroup('storage.k8s.io'), version: 'v1', resource: 'storageclasses' };
}

/** `--pvclaimbinder-sync-period`: every claim and volume is looked at again this often. */
export const DEFAULT_SYNC_PERIOD_MS = 15_000;

const CLAIM = 'claim:';
const VOLUME = 'volume:';

function isNotFound(err: unknown): boolean {
  return isApiError(err) && err.code === 404;
}

/** The cache caught up with a write: resourceVersions are etcd revisions here, compared as numbers. */
function newerOrSame(seen: string | undefined, written: string | undefined): boolean {
  if (seen === written) return true;
  if (!seen || !written || !/^\d+$/.test(seen) || !/^\d+$/.test(written)) return false;
  return BigInt(seen) >= BigInt(written);
}

export interface PersistentVolumeBinderOptions {
  client: ApiClient;
  volumes: Informer;
  claims: Informer;
  classes: Informer;
  nodes: Informer;
  clock: ControllerContext['clock'];
  recorder: EventRecorder;
  syncPeriodMs?: number;
  onError: (err: unknown) => void;
}

export class PersistentVolumeBinder extends KeyedLoop {
  /**
   * What this controller wrote that the informers may not show yet (by key): a pass reads
   * these over the cache, so that a volume just given to one claim is not given to another.
   * An entry goes once the informer delivers that resourceVersion.
   */
  private readonly written = new Map<string, KubeObject>();
  private cancelResync: () => void = () => {};

  constructor(private readonly opts: PersistentVolumeBinderOptions) {
    super(opts.clock, 'volumes');
    const seen = (key: string, o: KubeObject): void => {
      const w = this.written.get(key);
      if (w && newerOrSame(o.metadata?.resourceVersion, w.metadata?.resourceVersion)) this.written.delete(key);
    };
    const onClaim = (pvc: KubeObject): void => {
      seen(CLAIM + claimKey(pvc), pvc);
      this.add(CLAIM + claimKey(pvc));
    };
    const onVolume = (pv: KubeObject): void => {
      seen(VOLUME + (pv.metadata?.name ?? ''), pv);
      this.add(VOLUME + (pv.metadata?.name ?? ''));
      const ref = volumeSpec(pv).claimRef;
      if (ref?.name) this.add(`${CLAIM}${ref.namespace ?? ''}/${ref.name}`);
      // A volume that may be free now may serve a waiting claim.
      if (!ref?.uid) this.addPendingClaims();
    };
    this.onStop(
      opts.claims.addEventHandler({
        onAdd: onClaim,
        onUpdate: (_o, n) => onClaim(n),
        onDelete: (pvc) => {
          this.written.delete(CLAIM + claimKey(pvc));
          const bound = claimSpec(pvc).volumeName;
          if (bound) this.add(VOLUME + bound);
          for (const pv of opts.volumes.list()) if (isVolumeBoundToClaim(pv, pvc)) this.add(VOLUME + (pv.metadata?.name ?? ''));
        },
      }),
    );
    this.onStop(
      opts.volumes.addEventHandler({
        onAdd: onVolume,
        onUpdate: (_o, n) => onVolume(n),
        onDelete: (pv) => {
          this.written.delete(VOLUME + (pv.metadata?.name ?? ''));
          const ref = volumeSpec(pv).claimRef;
          if (ref?.name) this.add(`${CLAIM}${ref.namespace ?? ''}/${ref.name}`);
        },
      }),
    );
    const onClass = (): void => this.addPendingClaims();
    this.onStop(opts.classes.addEventHandler({ onAdd: onClass, onUpdate: onClass }));
  }

  private addPendingClaims(): void {
    for (const pvc of this.opts.claims.list()) {
      if (pvc.metadata?.annotations?.[bindCompletedAnnotation()] === undefined) this.add(CLAIM + claimKey(pvc));
    }
  }

  start(): void {
    // One worker: two claims synced at once could both take the same volume.
    this.run(async (key) => {
      if (await this.synced(this.opts.volumes, this.opts.claims, this.opts.classes, this.opts.nodes)) await this.sync(key);
    }, 1, this.opts.onError);
    const period = this.opts.syncPeriodMs ?? DEFAULT_SYNC_PERIOD_MS;
    const resync = (): void => {
      this.cancelResync = this.clock.schedule(period, () => {
        for (const pvc of this.opts.claims.list()) this.add(CLAIM + claimKey(pvc));
        for (const pv of this.opts.volumes.list()) this.add(VOLUME + (pv.metadata?.name ?? ''));
        resync();
      });
    };
    resync();
  }

  override async stop(): Promise<void> {
    this.cancelResync();
    await super.stop();
  }

  async sync(key: string): Promise<void> {
    if (key.startsWith(CLAIM)) {
      const pvc = this.claim(key.slice(CLAIM.length));
      if (pvc) await this.syncClaim(pvc);
    } else if (key.startsWith(VOLUME)) {
      const pv = this.volume(key.slice(VOLUME.length));
      if (pv) await this.syncVolume(pv);
    }
  }

  private claim(nsName: string): KubeObject | undefined {
    return this.written.get(CLAIM + nsName) ?? this.opts.claims.getByKey(nsName);
  }

  private volume(name: string): KubeObject | undefined {
    return this.written.get(VOLUME + name) ?? this.opts.volumes.getByKey(name);
  }

  private volumes(): KubeObject[] {
    return this.opts.volumes.list().map((pv) => this.written.get(VOLUME + (pv.metadata?.name ?? '')) ?? pv);
  }

  private event(o: KubeObject, type: 'Normal' | 'Warning', reason: string, note: string): void {
    this.opts.recorder.eventf(o, undefined, type, reason, reason, note);
  }

  // ---- claims ----

  private async syncClaim(pvc: KubeObject): Promise<void> {
    if (pvc.metadata?.annotations?.[bindCompletedAnnotation()] === undefined) await this.syncUnboundClaim(pvc);
    else await this.syncBoundClaim(pvc);
  }

  private async syncUnboundClaim(claim: KubeObject): Promise<void> {
    let pvc = claim;
    const wanted = claimSpec(pvc).volumeName;
    if (wanted) {
      await this.syncPreboundClaim(pvc, wanted);
      return;
    }
    const klass = storageClassOf(pvc);
    const sc = klass ? this.opts.classes.getByKey(klass) : undefined;
    const delayBinding = (sc as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === 'WaitForFirstConsumer';
    const selectedNode = pvc.metadata?.annotations?.[selectedNodeAnnotation()];
    const node = selectedNode ? this.opts.nodes.getByKey(selectedNode) : undefined;
    if (delayBinding && selectedNode && !node) {
      // The chosen node is not known yet: wait for it rather than bind without its labels.
      await this.claimStatus(pvc, 'Pending');
      return;
    }
    const pv = findBestMatch(pvc, this.volumes(), { delayBinding, ...(node ? { node } : {}) });
    if (pv) {
      await this.bind(pv, pvc);
      return;
    }
    if (delayBinding && !selectedNode) {
      this.event(pvc, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    } else if (klass) {
      const provisioner = this.provisioningEvent(pvc, klass, sc);
      if (provisioner) {
        const named = await this.nameProvisioner(pvc, provisioner);
        if (!named) return;
        pvc = named;
      }
    } else {
      this.event(pvc, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    }
    await this.claimStatus(pvc, 'Pending');
  }

  /**
   * No volume fits a claim of a class: its provisioner is to make one, if there is one.
   * Returns the external provisioner to wait for.
   */
  private provisioningEvent(pvc: KubeObject, klass: string, sc: KubeObject | undefined): string | undefined {
    if (!sc) {
      this.event(pvc, 'Warning', 'ProvisioningFailed', `storageclass.${fromKubernetesGroup('storage.k8s.io')} "${klass}" not found`);
      return undefined;
    }
    const provisioner = String((sc as { provisioner?: unknown }).provisioner ?? '');
    // Provisioners under the project's own domain are built in: none of them is built here.
    if (provisioner.startsWith(`${longDomain()}/`)) {
      this.event(pvc, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return undefined;
    }
    this.event(
      pvc,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
    return provisioner;
  }

  /** Names the external provisioner on the claim (both spellings), for it to find the claim. */
  private async nameProvisioner(pvc: KubeObject, provisioner: string): Promise<KubeObject | undefined> {
    const keys = storageProvisionerAnnotations();
    const annotations = pvc.metadata?.annotations ?? {};
    if (keys.every((k) => annotations[k] === provisioner)) return pvc;
    const next = structuredClone(pvc);
    next.metadata = { ...next.metadata, annotations: { ...annotations, ...Object.fromEntries(keys.map((k) => [k, provisioner])) } };
    return this.writeClaim(next);
  }

  /** The claim names its volume (`spec.volumeName`): bind to it if it is free and fits. */
  private async syncPreboundClaim(pvc: KubeObject, name: string): Promise<void> {
    const pv = this.volume(name);
    if (!pv) {
      await this.claimStatus(pvc, 'Pending');
      return;
    }
    const ref = volumeSpec(pv).claimRef;
    if (!ref) {
      const why = volumeMismatch(pvc, pv);
      if (why) {
        this.event(pvc, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${name}": ${why}`);
        await this.claimStatus(pvc, 'Pending');
        return;
      }
      await this.bind(pv, pvc);
    } else if (isVolumeBoundToClaim(pv, pvc)) {
      await this.bind(pv, pvc);
    } else {
      // Another claim holds it; the user asked for it, so wait until it is free.
      await this.claimStatus(pvc, 'Pending');
    }
  }

  private async syncBoundClaim(pvc: KubeObject): Promise<void> {
    const name = claimSpec(pvc).volumeName;
    if (!name) {
      await this.claimStatus(pvc, 'Lost', undefined, ['ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!']);
      return;
    }
    const pv = this.volume(name);
    if (!pv) {
      await this.claimStatus(pvc, 'Lost', undefined, ['ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!']);
      return;
    }
    const ref = volumeSpec(pv).claimRef;
    if (!ref || ref.uid === pvc.metadata?.uid) await this.bind(pv, pvc);
    else await this.claimStatus(pvc, 'Lost', undefined, ['ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly']);
  }

  // ---- volumes ----

  private async syncVolume(pv: KubeObject): Promise<void> {
    const ref = volumeSpec(pv).claimRef;
    if (!ref?.uid) {
      // Unused, or reserved for a claim (by name) that the claim's pass will bind.
      await this.volumeStatus(pv, 'Available');
      return;
    }
    let pvc = this.claim(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
    if (!pvc) {
      // The cache may lag behind a claim just made: ask before releasing its volume.
      try {
        pvc = await this.opts.client.get(PVCS, ref.namespace ?? '', ref.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (pvc && pvc.metadata?.uid !== ref.uid) pvc = undefined; // deleted, and another made under its name
    if (!pvc) {
      await this.release(pv);
      return;
    }
    const bound = claimSpec(pvc).volumeName;
    if (!bound) {
      // Half bound: the claim's pass finishes it.
      this.add(CLAIM + claimKey(pvc));
      return;
    }
    if (bound === pv.metadata?.name) {
      await this.volumeStatus(pv, 'Bound');
      return;
    }
    // The claim went to another volume: free this one (keep a user's reservation by name).
    const next = structuredClone(pv);
    const spec = next.spec as { claimRef?: ClaimRef | null };
    const annotations = { ...(next.metadata?.annotations ?? {}) };
    if (annotations[boundByControllerAnnotation()] !== undefined) {
      spec.claimRef = null;
      delete annotations[boundByControllerAnnotation()];
    } else if (spec.claimRef) {
      spec.claimRef = { ...spec.claimRef, uid: '' };
    }
    next.metadata = { ...next.metadata, annotations };
    const updated = await this.writeVolume(next);
    if (updated) await this.volumeStatus(updated, 'Available');
  }

  private async release(pv: KubeObject): Promise<void> {
    let current: KubeObject | undefined = pv;
    if (phaseOf(pv) !== 'Released' && phaseOf(pv) !== 'Failed') current = await this.volumeStatus(pv, 'Released');
    if (!current) return;
    switch (reclaimAction(current)) {
      case 'retain':
      case 'external-delete':
        return;
      case 'delete':
        try {
          await this.opts.client.delete(PVS, '', current.metadata?.name ?? '', { preconditions: { uid: current.metadata?.uid ?? '' } });
        } catch (err) {
          if (!isNotFound(err) && !(isApiError(err) && err.code === 409)) {
            this.event(current, 'Warning', 'VolumeFailedDelete', (err as Error).message);
            throw err;
          }
        }
        return;
      case 'recycle':
        await this.volumeStatus(current, 'Failed', ['VolumeFailedRecycle', 'No recycler plugin found for the volume!']);
        return;
      default:
        await this.volumeStatus(current, 'Failed', ['VolumeUnknownReclaimPolicy', 'Volume has unrecognized PersistentVolumeReclaimPolicy']);
    }
  }

  // ---- binding ----

  /** Binds both sides, each step only where it is not done yet. */
  private async bind(pv: KubeObject, pvc: KubeObject): Promise<void> {
    const ref = volumeSpec(pv).claimRef;
    let volume: KubeObject | undefined = pv;
    if (!ref || ref.name !== pvc.metadata?.name || ref.namespace !== pvc.metadata?.namespace || ref.uid !== pvc.metadata?.uid) {
      const next = structuredClone(pv);
      (next.spec as { claimRef?: ClaimRef }).claimRef = {
        kind: 'PersistentVolumeClaim',
        namespace: pvc.metadata?.namespace ?? '',
        name: pvc.metadata?.name ?? '',
        uid: pvc.metadata?.uid ?? '',
        apiVersion: 'v1',
        resourceVersion: pvc.metadata?.resourceVersion ?? '',
      };
      if (!ref) next.metadata = { ...next.metadata, annotations: { ...(next.metadata?.annotations ?? {}), [boundByControllerAnnotation()]: 'yes' } };
      volume = await this.writeVolume(next);
    }
    if (!volume) return;
    volume = await this.volumeStatus(volume, 'Bound');
    if (!volume) return;

    let claim: KubeObject | undefined = pvc;
    const annotations = pvc.metadata?.annotations ?? {};
    const name = volume.metadata?.name ?? '';
    if (claimSpec(pvc).volumeName !== name || annotations[bindCompletedAnnotation()] === undefined) {
      const next = structuredClone(pvc);
      const nextAnnotations: Record<string, string> = { ...annotations, [bindCompletedAnnotation()]: 'yes' };
      if (!claimSpec(pvc).volumeName) nextAnnotations[boundByControllerAnnotation()] = 'yes';
      next.metadata = { ...next.metadata, annotations: nextAnnotations };
      (next.spec as { volumeName?: string }).volumeName = name;
      claim = await this.writeClaim(next);
    }
    if (claim) await this.claimStatus(claim, 'Bound', volume);
  }

  private async writeVolume(pv: KubeObject): Promise<KubeObject | undefined> {
    try {
      const out = await this.opts.client.update(PVS, '', pv);
      this.written.set(VOLUME + (out.metadata?.name ?? ''), out);
      return out;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async writeClaim(pvc: KubeObject): Promise<KubeObject | undefined> {
    try {
      const out = await this.opts.client.update(PVCS, pvc.metadata?.namespace ?? '', pvc);
      this.written.set(CLAIM + claimKey(out), out);
      return out;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Sets the volume's phase (and message); `event` is recorded only when the phase changes. */
  private async volumeStatus(pv: KubeObject, phase: string, event?: [string, string]): Promise<KubeObject | undefined> {
    const status = (pv.status ?? {}) as { phase?: string; message?: string };
    const message = event?.[1];
    if (status.phase === phase && status.message === message) return pv;
    const next = { ...pv, status: { ...status, phase, ...(message ? { message } : {}) } };
    if (!message) delete (next.status as { message?: string }).message;
    try {
      const out = await this.opts.client.update(PVS, '', next, 'status');
      this.written.set(VOLUME + (out.metadata?.name ?? ''), out);
      if (event && status.phase !== phase) this.event(out, 'Warning', event[0], event[1]);
      return out;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Sets the claim's phase, with the bound volume's access modes and capacity (or none). */
  private async claimStatus(pvc: KubeObject, phase: string, pv?: KubeObject, event?: [string, string]): Promise<void> {
    const status = (pvc.status ?? {}) as Record<string, unknown>;
    const next: Record<string, unknown> = { ...status, phase };
    if (pv) {
      next.accessModes = volumeSpec(pv).accessModes;
      next.capacity = volumeSpec(pv).capacity;
    } else {
      delete next.accessModes;
      delete next.capacity;
    }
    if (JSON.stringify(next) === JSON.stringify(status)) return;
    try {
      const out = await this.opts.client.update(PVCS, pvc.metadata?.namespace ?? '', { ...pvc, status: next }, 'status');
      this.written.set(CLAIM + claimKey(out), out);
      if (event && status.phase !== phase) this.event(out, 'Warning', event[0], event[1]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

export const persistentVolumeBinderDescriptor: ControllerDescriptor = {
  name: 'persistentvolume-binder',
  // A getter: the storage group's name is the flavor's, known only once the server is built.
  get requires() {
    return [
      { group: '', resource: 'persistentvolumes' },
      { group: '', resource: 'persistentvolumeclaims' },
      { group: storageClassesResource().group, resource: 'storageclasses' },
    ];
  },
  start(ctx) {
    const controller = new PersistentVolumeBinder({
      client: ctx.client,
      volumes: ctx.informers.informerFor(PVS),
      claims: ctx.informers.informerFor(PVCS),
      classes: ctx.informers.informerFor(storageClassesResource()),
      nodes: ctx.informers.informerFor(NODES),
      clock: ctx.clock,
      recorder: ctx.eventRecorder(COMPONENT),
      ...(ctx.options.pvClaimBinderSyncPeriodMs !== undefined ? { syncPeriodMs: ctx.options.pvClaimBinderSyncPeriodMs } : {}),
      onError: ctx.onError,
    });
    controller.start();
    return controller;
  },
};
