// Dynamic admission webhooks: the MutatingAdmissionWebhook and ValidatingAdmissionWebhook
// plugins, fed by informers over the webhook configuration kinds.
//
//   const plugins = webhookPlugins({ client, informers, resources });   // [mutating, validating]
//
// or, for buildAdmissionChain's `plugins` map, `webhookPluginFactories({ resources })`.
import type { Registry } from 'prom-client';
import { internalError } from '../../apimachinery/errors.js';
import { apiVersionOf, type KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { SharedInformerFactory } from '../../client/informer-factory.js';
import type { ResourceTable } from '../../rest/index.js';
import type { ConversionWebhookTransport } from '../../registry/customresource/conversion.js';
import type { AdmissionPlugin, AdmissionPluginFactory } from '../types.js';
import { webhookCaller, type ServiceResolver } from './client.js';
import type { Webhook } from './config.js';
import { credentialsFromPluginConfig } from './credentials.js';
import { MutatingAdmissionWebhook, ValidatingAdmissionWebhook, type VersionConverter } from './dispatch.js';
import { tableEquivalents, WebhookMatcher } from './matcher.js';
import { CallingWebhookError } from './review.js';
import { webhookMetrics } from './metrics.js';
import { InformerServiceResolver, mutatingConfigurations, namespaceLabelsLookup, validatingConfigurations, WebhookSource, type InformerFor } from './sources.js';

export type { AuditAnnotationLevel, AuditedAdmissionAttributes } from './audit.js';
export type { ServiceResolver } from './client.js';
export { MutatingAdmissionWebhook, ValidatingAdmissionWebhook } from './dispatch.js';
export { ruleMatches } from './rules.js';

interface WebhookPluginDeps {
  /** A privileged client: the plugins list and watch configurations, namespaces, services and endpoints. */
  client: ApiClient;
  /** Informers shared with the rest of the server; the plugins run their own when absent. */
  informers?: SharedInformerFactory;
  /** The served resources: `matchPolicy: Equivalent` and conversions between versions need it. */
  resources?: ResourceTable;
  /** Where the webhook metrics are registered (prom-client's default registry when absent). */
  metricsRegistry?: Registry;
  /** How long a request waits for the first list of configurations before 403 (default 10 s). */
  readyTimeoutMs?: number;
  /** Replaces the informer-based resolution of service references (tests, other networks). */
  serviceResolver?: ServiceResolver;
  /**
   * The plugin's entry of the admission configuration file (a WebhookAdmissionConfiguration):
   * its `kubeConfigFile` holds the credentials this server presents to webhooks.
   */
  config?: Record<string, unknown>;
}

export type WebhookAdmissionPlugin = AdmissionPlugin & { stop(): Promise<void> };

/**
 * Through the storage version, as every served version converts. Waits only when one of the
 * two versions converts through a conversion webhook.
 */
export function tableConverter(table: ResourceTable | undefined): VersionConverter {
  return (obj, from, to, toKind) => {
    const fromConversion = table?.lookup({ group: from.group, version: from.version }, from.resource)?.definition.conversion;
    const toConversion = table?.lookup({ group: to.group, version: to.version }, to.resource)?.definition.conversion;
    const typed = (out: KubeObject): KubeObject => {
      out.apiVersion = apiVersionOf(toKind);
      out.kind = toKind.kind;
      return out;
    };
    if (fromConversion?.async || toConversion?.async) {
      return (async () => {
        let out = obj;
        if (fromConversion) out = fromConversion.async ? await fromConversion.async.toStorage(out) : fromConversion.toStorage(out);
        if (toConversion) out = toConversion.async ? await toConversion.async.fromStorage(out) : toConversion.fromStorage(out);
        return typed(out);
      })();
    }
    let out = obj;
    if (fromConversion) out = fromConversion.toStorage(out);
    if (toConversion) out = toConversion.fromStorage(out);
    return typed(out);
  };
}

/**
 * The admission webhooks' HTTPS client as the transport of custom resources' conversion
 * webhooks: the same service resolution, trust and credentials, and Go's error texts
 * (`Post "<url>?timeout=30s": ...`, or the answered Status's message).
 */
export function conversionWebhookTransport(
  deps: { serviceResolver?: ServiceResolver; client?: ApiClient; config?: Record<string, unknown> } = {},
): ConversionWebhookTransport & { close(): void } {
  // Service references resolve as admission webhooks' do, through informers started on first use.
  const own = !deps.serviceResolver && deps.client ? new SharedInformerFactory(deps.client) : undefined;
  own?.start();
  const resolver = deps.serviceResolver ?? (own ? new InformerServiceResolver((r) => own.informerFor(r)) : undefined);
  const caller = webhookCaller(resolver, credentialsFromPluginConfig(deps.config));
  const prefix = 'failed to call webhook: ';
  return {
    async post(target, review) {
      const webhook: Webhook = {
        uid: target.name,
        type: 'validating',
        configurationName: target.name,
        name: target.name,
        rules: [],
        namespaceSelector: { error: internalError('unused') },
        objectSelector: { error: internalError('unused') },
        matchPolicy: 'Exact',
        clientConfig: { url: target.url, service: target.service, caBundle: target.caBundle },
        sideEffects: 'None',
        timeoutSeconds: target.timeoutSeconds,
        admissionReviewVersions: [],
        failurePolicy: 'Fail',
        reinvocationPolicy: 'Never',
      };
      try {
        return await caller.call(webhook, review);
      } catch (err) {
        if (!(err instanceof CallingWebhookError)) throw err;
        const reason = err.reason.startsWith(prefix) ? err.reason.slice(prefix.length) : err.reason;
        // Go's http.Client words its own timeout so.
        throw new Error(reason.endsWith(': context deadline exceeded') ? `${reason} (Client.Timeout exceeded while awaiting headers)` : reason);
      }
    },
    close: () => {
      caller.close();
      void own?.stop();
    },
  };
}

/** One webhook plugin with its own configuration informer, connections and service resolution. */
export function webhookPlugin(type: 'mutating' | 'validating', deps: WebhookPluginDeps): WebhookAdmissionPlugin {
  // Configuration errors first, before anything starts that would need stopping.
  const credentials = credentialsFromPluginConfig(deps.config);
  const own = deps.informers ? undefined : new SharedInformerFactory(deps.client);
  const factory = deps.informers ?? own!;
  const informerFor: InformerFor = (r) => factory.informerFor(r);
  own?.start();

  const informer = informerFor(type === 'mutating' ? mutatingConfigurations() : validatingConfigurations());
  informer.start();
  const source = new WebhookSource(informer, type);
  const readyMs = deps.readyTimeoutMs ?? 10_000;
  const caller = webhookCaller(deps.serviceResolver ?? new InformerServiceResolver(informerFor), credentials);
  const dispatcherDeps = {
    webhooks: () => source.webhooks(),
    ready: () => source.ready(readyMs),
    matcher: new WebhookMatcher({
      namespaceLabels: namespaceLabelsLookup(informerFor, deps.client),
      equivalents: deps.resources ? tableEquivalents(deps.resources) : undefined,
    }),
    caller,
    metrics: webhookMetrics(deps.metricsRegistry),
    convert: tableConverter(deps.resources),
  };
  const plugin = type === 'mutating' ? new MutatingAdmissionWebhook(dispatcherDeps) : new ValidatingAdmissionWebhook(dispatcherDeps);
  let stopping: Promise<void> | undefined;
  return Object.assign(plugin, {
    stop(): Promise<void> {
      stopping ??= (async () => {
        caller.close();
        await own?.stop();
      })();
      return stopping;
    },
  });
}

/** The two webhook plugins, mutating first. */
export function webhookPlugins(deps: WebhookPluginDeps): WebhookAdmissionPlugin[] {
  const informers = deps.informers ?? new SharedInformerFactory(deps.client);
  const shared = { ...deps, informers };
  const plugins = [webhookPlugin('mutating', shared), webhookPlugin('validating', shared)];
  if (deps.informers) return plugins;
  // The informers are this pair's own: the last plugin to stop stops them.
  informers.start();
  let running = plugins.length;
  return plugins.map((p) => {
    const stopPlugin = p.stop.bind(p);
    return Object.assign(p, {
      async stop(): Promise<void> {
        await stopPlugin();
        if (--running === 0) await informers.stop();
      },
    });
  });
}

/**
 * Factories by plugin name for `buildAdmissionChain`'s `plugins` map; each plugin reads its
 * own entry of the admission configuration file.
 */
export function webhookPluginFactories(extra: Omit<WebhookPluginDeps, 'client' | 'informers' | 'config'> = {}): Record<string, AdmissionPluginFactory> {
  return {
    MutatingAdmissionWebhook: (ctx) => webhookPlugin('mutating', { ...extra, client: ctx.client, informers: ctx.informers, config: ctx.config }),
    ValidatingAdmissionWebhook: (ctx) => webhookPlugin('validating', { ...extra, client: ctx.client, informers: ctx.informers, config: ctx.config }),
  };
}
