// ValidatingAdmissionPolicy (admissionregistration v1alpha1 in 1.27): policies and their
// bindings evaluated with CEL. The plugin is on by default but acts only when the
// ValidatingAdmissionPolicy feature gate is on, as in kube-apiserver.
import type { AdmissionPluginFactory } from '../types.js';
import type { AdmissionDeps } from '../deps.js';

export function validatingPolicyFactories(_deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  return {
    ValidatingAdmissionPolicy: ({ features }) => {
      if (features.enabled('ValidatingAdmissionPolicy')) {
        throw new Error('admission plugin "ValidatingAdmissionPolicy" is not built in this server yet; turn its feature gate off');
      }
      // Gate off: the plugin stands in the chain and admits everything, as kube-apiserver's does.
      return { name: 'ValidatingAdmissionPolicy', handles: () => false };
    },
  };
}
