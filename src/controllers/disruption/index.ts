// The disruption controller: PodDisruptionBudget status from pod readiness and workload scale.
export { DisruptionController, disruptionControllerDescriptor, DELETION_TIMEOUT_MS, STALE_POD_DISRUPTION_TIMEOUT_MS, scaledValue } from './controller.js';
