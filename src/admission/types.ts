// Contract between the resource handlers and the admission chain. Mutating plugins run
// before the Store call and may change `object`; validating plugins run inside the Store,
// after the strategy's validation, and may only reject (throw ApiError).
import type { AuditAnnotations } from '../apimachinery/audit.js';
import type { FeatureGate } from '../apimachinery/features.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject, UserInfo } from '../apimachinery/types.js';
import type { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  /** The object being written (mutable for mutating plugins); undefined on DELETE and CONNECT. */
  object?: KubeObject;
  /** The stored object before the change; undefined on CREATE and CONNECT. */
  oldObject?: KubeObject;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subresource: string;
  namespace: string;
  name: string;
  user: UserInfo;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions or DeleteOptions as the client sent them. */
  options?: Record<string, unknown>;
  /** Warnings for the client. */
  warnings: string[];
  /** The request's audit event, when the request is audited (webhook, PodSecurity and image policy annotations). */
  audit?: AuditAnnotations;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Whether the plugin cares about this operation at all (cheap check). */
  handles(operation: AdmissionOperation): boolean;
  /** Mutating phase. May change `attrs.object`; throws ApiError to reject. */
  admit?(attrs: AdmissionAttributes): Promise<void>;
  /** Validating phase. Throws ApiError to reject. */
  validate?(attrs: AdmissionAttributes): Promise<void>;
}

/** The ordered chain the handlers call. */
export interface AdmissionChain {
  admit(attrs: AdmissionAttributes): Promise<void>;
  validate(attrs: AdmissionAttributes): Promise<void>;
}

export interface AdmissionPluginContext {
  client: ApiClient;
  informers?: SharedInformerFactory;
  /** The plugin's entry of the admission configuration file ({} when absent). */
  config: Record<string, unknown>;
  /** The server's feature gates. */
  features: FeatureGate;
}

/** Builds one plugin; other modules contribute theirs (ServiceAccount, webhooks, ...) this way. */
export type AdmissionPluginFactory = (ctx: AdmissionPluginContext) => AdmissionPlugin & { stop?(): Promise<void> };
