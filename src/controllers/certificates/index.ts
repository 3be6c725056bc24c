// The certificate controllers, as kube-controller-manager names them.
export { csrApprovingController } from './approving.js';
export { csrSigningController } from './signing.js';
export { csrCleanerController } from './cleaner.js';
