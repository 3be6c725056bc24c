export { endpointSliceMirroringControllerDescriptor, EndpointSliceMirroringController } from './controller.js';
export * from './mirror.js';
