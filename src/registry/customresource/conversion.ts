// Conversion of custom resources between the versions of their definition. `None` rewrites
// `apiVersion` only; `Webhook` asks the definition's conversion webhook, which makes the
// conversion asynchronous (`VersionConversion.async`).
import { getOwn } from '../../apimachinery/own.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { VersionConversion } from '../../rest/index.js';
import {
  CONVERSION_WEBHOOK_TIMEOUT_SECONDS,
  WebhookConverter,
  conversionError,
  type ConversionServiceReference,
  type ConversionWebhookTarget,
  type ConversionWebhookTransport,
} from './webhook-converter.js';

export type { ConversionWebhookTarget, ConversionWebhookTransport, ConversionServiceReference } from './webhook-converter.js';

/** The part of a CustomResourceDefinition conversion reads. */
export interface CRDConversionSource {
  group: string;
  /** The storage version's name. */
  storageVersion: string;
  /** The definition's name (`<plural>.<group>`): names its webhook. */
  name?: string;
  /** `spec.conversion` as stored. */
  conversion?: { strategy?: string; webhook?: unknown };
}

export interface CRDConversionOptions {
  /** How webhooks are called; a `Webhook` definition without it fails every conversion with a 500. */
  transport?: ConversionWebhookTransport;
  /** Kubernetes' fixed 30 s unless set (tests). */
  timeoutSeconds?: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `spec.conversion.webhook` as a target and the review versions to offer. */
export function webhookTarget(
  crdName: string,
  webhook: unknown,
  timeoutSeconds = CONVERSION_WEBHOOK_TIMEOUT_SECONDS,
): { target: ConversionWebhookTarget; reviewVersions: string[] } {
  const w = isObject(webhook) ? webhook : {};
  const cc = getOwn(w, 'clientConfig');
  const config = isObject(cc) ? cc : {};
  const target: ConversionWebhookTarget = {
    name: `conversion_webhook_for_${crdName}`,
    caBundle: Buffer.from(str(getOwn(config, 'caBundle')), 'base64').toString('utf8'),
    timeoutSeconds,
  };
  const url = getOwn(config, 'url');
  if (typeof url === 'string' && url !== '') target.url = url;
  const svc = getOwn(config, 'service');
  if (isObject(svc)) {
    const port = getOwn(svc, 'port');
    const service: ConversionServiceReference = {
      namespace: str(getOwn(svc, 'namespace')),
      name: str(getOwn(svc, 'name')),
      path: str(getOwn(svc, 'path')),
      port: typeof port === 'number' && port > 0 ? port : 443,
    };
    target.service = service;
  }
  const versions = getOwn(w, 'conversionReviewVersions');
  return { target, reviewVersions: Array.isArray(versions) ? versions.filter((v): v is string => typeof v === 'string') : [] };
}

/**
 * Conversion between `servedVersion` and the storage version. Undefined for `None` when
 * they are the same. A webhook converts even then: objects written under an earlier storage
 * version are still in that version.
 */
export function crdConversion(crd: CRDConversionSource, servedVersion: string, opts: CRDConversionOptions = {}): VersionConversion | undefined {
  const storageApiVersion = `${crd.group}/${crd.storageVersion}`;
  const servedApiVersion = `${crd.group}/${servedVersion}`;
  if (crd.conversion?.strategy !== 'Webhook') {
    if (servedVersion === crd.storageVersion) return undefined;
    const rewrite = (apiVersion: string) => (obj: KubeObject): KubeObject => ({ ...obj, apiVersion });
    return { toStorage: rewrite(storageApiVersion), fromStorage: rewrite(servedApiVersion) };
  }
  const { target, reviewVersions } = webhookTarget(crd.name ?? '', crd.conversion.webhook, opts.timeoutSeconds);
  const converter = new WebhookConverter({ target, reviewVersions, transport: opts.transport });
  const mustWait = (): never => {
    throw conversionError(`conversion webhook for ${servedApiVersion} needs an asynchronous call`);
  };
  const one = async (obj: KubeObject, apiVersion: string): Promise<KubeObject> => (await converter.convert([obj], apiVersion, true))[0];
  return {
    toStorage: mustWait,
    fromStorage: mustWait,
    async: {
      toStorage: (obj) => one(obj, storageApiVersion),
      fromStorage: (obj) => one(obj, servedApiVersion),
      fromStorageAll: (objs) => converter.convert(objs, servedApiVersion, false),
    },
  };
}
