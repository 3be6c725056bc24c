export { endpointSliceControllerDescriptor, EndpointSliceController, managedSliceServiceKey, SliceTracker } from './controller.js';
export * from './reconcile.js';
