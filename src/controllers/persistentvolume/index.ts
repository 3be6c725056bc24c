// The persistent volume binder, as kube-controller-manager names it: `persistentvolume-binder`.
export { PersistentVolumeBinder, persistentVolumeBinderDescriptor, PVS, PVCS, storageClassesResource } from './controller.js';
export * from './binding.js';
