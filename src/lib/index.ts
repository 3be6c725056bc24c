// The public entry point of the `orch` package: a real API server inside a test process.
//
//   import { startApiServer } from 'orch';
//   const server = await startApiServer({ crds: ['./config/crd'] });
//   const kc = server.kubeConfig(KubeConfig);   // @kubernetes/client-node's class
//   ...
//   await server.stop();
export { startApiServer, type ApiServerHandle, type SettleOptions } from './server.js';
export { OptionError, type ApiServerOptions, type EtcdOptions, type NodeCIDROptions, type StorageBackend } from './options.js';
export type { Credentials, KubeConfigClass, KubeConfigCluster, KubeConfigContext, KubeConfigOptions, KubeConfigUser } from './kubeconfig.js';
export type { AdmissionAnswer, AdmissionRequest, InstalledWebhook, WebhookOptions, WebhookRule } from './webhook.js';
export { FakeClock, realClock, type Clock } from '../apimachinery/clock.js';
export type { Flavor } from '../naming/index.js';
