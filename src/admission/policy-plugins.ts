// The plugins of cluster policy outside pods: ImagePolicyWebhook, EventRateLimit,
// DenyServiceExternalIPs, NamespaceAutoProvision, NamespaceExists, PersistentVolumeLabel;
// and the deprecated AlwaysAdmit and AlwaysDeny again, so that enabling them logs
// Kubernetes' deprecation warning.
import { realClock } from '../apimachinery/clock.js';
import { alwaysAdmit, alwaysDeny } from './chain.js';
import type { AdmissionDeps } from './deps.js';
import { denyServiceExternalIPs } from './deny-service-external-ips.js';
import { EventRateLimit, parseEventRateLimitConfig } from './event-rate-limit.js';
import { imagePolicyWebhookFrom } from './image-policy.js';
import { NamespaceAutoProvision } from './namespace-autoprovision.js';
import { NamespaceExists } from './namespace-exists.js';
import { deprecatedPluginWarning, persistentVolumeLabel } from './persistent-volume-label.js';
import type { AdmissionPlugin, AdmissionPluginFactory } from './types.js';

export function policyPluginFactories(deps: AdmissionDeps): Record<string, AdmissionPluginFactory> {
  const clock = deps.clock ?? realClock;
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const deprecated = (plugin: AdmissionPlugin): AdmissionPluginFactory => () => {
    log(`admission: ${deprecatedPluginWarning(plugin.name)}`);
    return plugin;
  };
  return {
    AlwaysAdmit: deprecated(alwaysAdmit),
    AlwaysDeny: deprecated(alwaysDeny),
    PersistentVolumeLabel: deprecated(persistentVolumeLabel),
    ImagePolicyWebhook: ({ config }) => imagePolicyWebhookFrom(config, clock),
    EventRateLimit: ({ config }) => new EventRateLimit(parseEventRateLimitConfig(config), clock),
    DenyServiceExternalIPs: () => denyServiceExternalIPs,
    NamespaceAutoProvision: ({ client }) => new NamespaceAutoProvision(client),
    NamespaceExists: ({ client }) => new NamespaceExists(client),
  };
}
