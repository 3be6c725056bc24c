// The token controllers as kube-controller-manager names them, and the cluster-info
// publication the start-up runs.
import type { ControllerDescriptor } from '../types.js';
import { startBootstrapSigner } from './bootstrapsigner.js';
import { startServiceAccountTokens } from './serviceaccount-token.js';
import { startTokenCleaner } from './tokencleaner.js';

export { clusterInfoConfigMap, clusterInfoKubeconfig, clusterInfoNamespace, ensureClusterInfo, CLUSTER_INFO, JWS_KEY_PREFIX, KUBECONFIG_KEY } from './cluster-info.js';
export { detachedSignature } from './jws.js';
export { signedClusterInfoData, startBootstrapSigner } from './bootstrapsigner.js';
export { startTokenCleaner } from './tokencleaner.js';
export { startServiceAccountTokens } from './serviceaccount-token.js';

/** Signs cluster-info with bootstrap tokens; off unless named in `--controllers`. */
export const bootstrapSignerController: ControllerDescriptor = {
  name: 'bootstrapsigner',
  requires: [{ group: '', resource: 'secrets' }, { group: '', resource: 'configmaps' }],
  disabledByDefault: true,
  start: startBootstrapSigner,
};

/** Deletes expired bootstrap tokens; off unless named in `--controllers`. */
export const tokenCleanerController: ControllerDescriptor = {
  name: 'tokencleaner',
  requires: [{ group: '', resource: 'secrets' }],
  disabledByDefault: true,
  start: startTokenCleaner,
};

/** Deletes legacy token Secrets of deleted service accounts. */
export const serviceAccountTokenController: ControllerDescriptor = {
  name: 'serviceaccount-token',
  requires: [{ group: '', resource: 'secrets' }, { group: '', resource: 'serviceaccounts' }],
  start: (ctx) => startServiceAccountTokens(ctx),
};

export const tokenControllers: ControllerDescriptor[] = [bootstrapSignerController, tokenCleanerController, serviceAccountTokenController];
