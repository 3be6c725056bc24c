// The volume protection controllers, as kube-controller-manager names them: `pvc-protection`
// and `pv-protection` take their finalizers off claims and volumes nothing uses any more.
import type { ControllerDescriptor } from '../types.js';
import { pvcProtectionControllerDescriptor } from './pvcprotection/controller.js';
import { pvProtectionControllerDescriptor } from './pvprotection/controller.js';

export { PVCProtectionController, pvcProtectionControllerDescriptor, pvcProtectionFinalizer, podUsesClaim, claimNames } from './pvcprotection/controller.js';
export { PVProtectionController, pvProtectionControllerDescriptor, pvProtectionFinalizer, volumeInUse } from './pvprotection/controller.js';

export const volumeProtectionControllers: ControllerDescriptor[] = [pvcProtectionControllerDescriptor, pvProtectionControllerDescriptor];
