// The client layer: the in-process and HTTPS implementations of `ApiClient`, and kubeconfig files.
export type { ApiClient } from './types.js';
export { canDeleteCollection, type CollectionDeleter } from './extended.js';
export { LoopbackClient, type LoopbackClientOptions } from './loopback.js';
export { HttpClient, errorFromResponse, type HttpClientOptions, type RawResponse } from './http.js';
export {
  KubeconfigError,
  parseKubeconfig,
  readKubeconfig,
  renderKubeconfig,
  type ClientConfig,
  type KubeconfigInput,
} from './kubeconfig.js';
export { groupVersionPath, listQuery, resourcePath } from './paths.js';
