// The garbage collector as the controller manager starts it.
import type { ControllerDescriptor } from '../types.js';
import { startGarbageCollector } from './controller.js';

export { GarbageCollector, deletable } from './controller.js';
export { DependencyGraph } from './graph.js';

export const garbageCollectorController: ControllerDescriptor = {
  name: 'garbagecollector',
  start: (ctx) => startGarbageCollector(ctx),
};
