// The client layer: the HTTPS implementation of `ApiClient` (the in-process one is the server's), kubeconfig files,
// and what consumers build on a client: informers, their shared factory, the work queue.
export type { ApiClient } from './types.js';
export { canDeleteCollection, type CollectionDeleter } from './extended.js';
export { HttpClient, errorFromResponse, type HttpClientOptions, type RawResponse } from './http.js';
export { ExecAuthenticator, ExecCredentialError, type ExecCredentials } from './exec.js';
export {
  execApiVersions,
  KubeconfigError,
  parseKubeconfig,
  readKubeconfig,
  renderKubeconfig,
  type ClientConfig,
  type ExecConfig,
  type InteractiveMode,
  type KubeconfigInput,
} from './kubeconfig.js';
export { groupVersionPath, listQuery, resourcePath } from './paths.js';
export { Informer, keyOf, splitKey, type InformerOptions, type ResourceEventHandler } from './informer.js';
export { SharedInformerFactory, type SharedInformerOptions } from './informer-factory.js';
export { ExponentialBackoff, runWorkers, WorkQueue, type RateLimiter } from './workqueue.js';
