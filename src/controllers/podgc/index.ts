// The pod garbage collector: terminated pods beyond a threshold, orphans of deleted nodes, and
// terminating pods no node will finish.
export {
  byCreationTimestamp,
  DEFAULT_TERMINATED_POD_GC_THRESHOLD,
  GC_CHECK_PERIOD_MS,
  isPodTerminated,
  ORPHAN_CONDITION,
  outOfServiceTaintKey,
  PodGCController,
  podGCControllerDescriptor,
  type PodGCOptions,
  QUARANTINE_MS,
} from './controller.js';
