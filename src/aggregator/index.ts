// The aggregation layer's public entry point: what other folders use.
export { Aggregator, type AggregatorOptions } from './aggregator.js';
export { AUTHENTICATION_CONFIGMAP } from './authentication-info.js';
export { automanagedLabel, desiredLocalAPIServices } from './autoregistration.js';
export type { FrontProxyConfig } from './front-proxy.js';
