// What the admission chain is built with: the server's parts the plugins use.
import type { Clock } from '../apimachinery/clock.js';
import type { FeatureGate } from '../apimachinery/features.js';
import type { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';
import type { ResourceTable } from '../rest/index.js';
import type { SignerAuthorizer } from './certificates.js';
import type { AdmissionPluginFactory } from './types.js';

export interface AdmissionDeps {
  /** A privileged client, for the plugins' lookups (the server passes a LoopbackClient). */
  client: ApiClient;
  /** Informers shared with the controllers; plugins make their own when absent. */
  informers?: SharedInformerFactory;
  /** Plugins implemented outside this folder, by name. */
  plugins?: Record<string, AdmissionPluginFactory>;
  /** The served resources, for the webhooks' `matchPolicy: Equivalent` and version conversions. */
  resources?: ResourceTable;
  /** How the certificate plugins ask whether a user may approve or sign for a signer (a SubjectAccessReview through `client` when absent). */
  signerAuthorizer?: SignerAuthorizer;
  /** The server's feature gates (the 1.27 defaults when absent). */
  features?: FeatureGate;
  /** Time for rate limits, caches and retries (the wall clock when absent). */
  clock?: Clock;
  /** Where plugins' start-up warnings go (standard error when absent). */
  log?: (line: string) => void;
}
