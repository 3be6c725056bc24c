export { endpointControllerDescriptor, EndpointController, endpointsLabels, servicesSelecting } from './controller.js';
export { desiredSubsets, truncateSubsets, addressCount, type EndpointAddress, type EndpointSubset } from './subsets.js';
export * from './util.js';
