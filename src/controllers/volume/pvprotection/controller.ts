// The PV protection controller (kube-controller-manager's `pv-protection`): the
// StorageObjectInUseProtection admission plugin puts the `pv-protection` finalizer on every
// PersistentVolume; this controller takes it off a volume being deleted unless the volume is
// bound (`status.phase` Bound, which the volume binder sets and clears), and puts it back on a
// live volume that lacks it.
import type { GroupVersionResource, KubeObject } from '../../../apimachinery/types.js';
import { isApiError } from '../../../apimachinery/errors.js';
import type { Informer } from '../../../client/informer.js';
import type { ApiClient } from '../../../client/types.js';
import { longDomainKey } from '../../../naming/index.js';
import { KeyedLoop } from '../../keyed-loop.js';
import type { ControllerContext, ControllerDescriptor } from '../../types.js';
import { isDeletionCandidate, needToAddFinalizer, withFinalizer, withoutFinalizer } from '../protection.js';

export const PVS: GroupVersionResource = { group: '', version: 'v1', resource: 'persistentvolumes' };

/** `kubernetes.io/pv-protection` in the flavor of the running server. */
export function pvProtectionFinalizer(): string {
  return longDomainKey('pv-protection');
}

/** A volume is in use while it is bound to a claim. */
export function volumeInUse(pv: KubeObject): boolean {
  return (pv.status as { phase?: unknown } | undefined)?.phase === 'Bound';
}

export interface PVProtectionOptions {
  client: ApiClient;
  volumes: Informer;
  clock: ControllerContext['clock'];
  onError: (err: unknown) => void;
}

export class PVProtectionController extends KeyedLoop {
  constructor(private readonly opts: PVProtectionOptions) {
    super(opts.clock, 'pvprotection');
    const onVolume = (pv: KubeObject): void => {
      const f = pvProtectionFinalizer();
      if (needToAddFinalizer(pv, f) || isDeletionCandidate(pv, f)) this.add(pv.metadata?.name ?? '');
    };
    this.onStop(opts.volumes.addEventHandler({ onAdd: onVolume, onUpdate: (_old, pv) => onVolume(pv) }));
  }

  start(): void {
    this.run(async (key) => {
      if (await this.synced(this.opts.volumes)) await this.sync(key);
    }, 1, this.opts.onError);
  }

  async sync(name: string): Promise<void> {
    const pv = this.opts.volumes.getByKey(name);
    if (!pv) return;
    const f = pvProtectionFinalizer();
    if (isDeletionCandidate(pv, f) && !volumeInUse(pv)) {
      await this.write(withoutFinalizer(pv, f));
      return;
    }
    if (needToAddFinalizer(pv, f)) await this.write(withFinalizer(pv, f));
  }

  private async write(pv: KubeObject): Promise<void> {
    try {
      await this.opts.client.update(PVS, '', pv);
    } catch (err) {
      if (isApiError(err) && err.code === 404) return;
      throw err;
    }
  }
}

export const pvProtectionControllerDescriptor: ControllerDescriptor = {
  name: 'pv-protection',
  requires: [{ group: '', resource: 'persistentvolumes' }],
  start(ctx) {
    const controller = new PVProtectionController({ client: ctx.client, volumes: ctx.informers.informerFor(PVS), clock: ctx.clock, onError: ctx.onError });
    controller.start();
    return controller;
  },
};
