// PersistentVolumeLabel (deprecated upstream): labelled volumes of the built-in cloud
// providers with their zone and region. This server has no cloud provider, for which the
// plugin changes nothing in 1.27 either; it admits every request, and its construction logs
// Kubernetes' deprecation warning so an administrator knows to remove it.
import type { AdmissionOperation, AdmissionPlugin } from './types.js';

export const PERSISTENT_VOLUME_LABEL = 'PersistentVolumeLabel';

/** The warning kube-apiserver logs when a deprecated plugin is enabled. */
export function deprecatedPluginWarning(name: string): string {
  return `${name} admission controller is deprecated. Please remove this controller from your configuration files and scripts.`;
}

export const persistentVolumeLabel: AdmissionPlugin = {
  name: PERSISTENT_VOLUME_LABEL,
  handles: (operation: AdmissionOperation) => operation === 'CREATE',
  async admit() {},
};
