// EventRateLimit: token buckets on core Event writes, one bucket for the whole server or one
// per namespace, user, or event source and object (each of those kept in a bounded LRU, so a
// flood of distinct keys costs memory only up to `cacheSize`). Every configured limit takes a
// token from its bucket on each write; any empty bucket refuses the write with 429.
import { ApiError } from '../apimachinery/errors.js';
import type { Clock } from '../apimachinery/clock.js';
import { getOwn } from '../apimachinery/own.js';
import { isPlainObject } from '../apimachinery/types.js';
import { group } from '../naming/index.js';
import type { AdmissionAttributes, AdmissionOperation, AdmissionPlugin } from './types.js';
import { stringAt, type JsonMap } from './util.js';
import { TokenBucket } from '../apimachinery/token-bucket.js';

export const EVENT_RATE_LIMIT = 'EventRateLimit';

export type LimitType = 'Server' | 'Namespace' | 'User' | 'SourceAndObject';
const LIMIT_TYPES: readonly LimitType[] = ['Namespace', 'Server', 'SourceAndObject', 'User'];

export interface EventLimit {
  type: LimitType;
  qps: number;
  burst: number;
  /** Buckets kept for the keyed types (4096 when 0). */
  cacheSize: number;
}

const DEFAULT_CACHE_SIZE = 4096;
const INT32_MAX = 2 ** 31 - 1;

/** The configuration's apiVersion: `eventratelimit.admission.<domain>/v1alpha1`. */
export function eventRateLimitApiVersion(): string {
  return `${group('eventratelimit.admission')}/v1alpha1`;
}

export class EventRateLimitConfigError extends Error {
  constructor(message: string) {
    super(`couldn't init admission plugin "${EVENT_RATE_LIMIT}" from --admission-control-config-file: ${message}`);
    this.name = 'EventRateLimitConfigError';
  }
}

function quoteValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Reads an int32 field; problems are reported in Kubernetes' field-error wording. */
function int32Field(entry: JsonMap, key: string, path: string, errs: string[]): number {
  const v = getOwn(entry, key);
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -INT32_MAX - 1 || v > INT32_MAX) {
    errs.push(`${path}.${key}: Invalid value: ${quoteValue(v)}: must be a 32-bit integer`);
    return 0;
  }
  return v;
}

/**
 * The limits of an `eventratelimit.admission.<domain>/v1alpha1` Configuration (the plugin's
 * entry of the admission configuration). Validation follows Kubernetes: at least one limit,
 * a known type, qps and burst positive, cacheSize not negative. Pure; throws
 * EventRateLimitConfigError.
 */
export function parseEventRateLimitConfig(config: Readonly<Record<string, unknown>>): EventLimit[] {
  const apiVersion = getOwn(config, 'apiVersion');
  const kind = getOwn(config, 'kind');
  // No configuration at all is an empty one (and refused below); a document must say what it is.
  if (Object.keys(config).length > 0) {
    if (typeof kind !== 'string' || kind === '') throw new EventRateLimitConfigError(`Object 'Kind' is missing in configuration (want kind Configuration in ${eventRateLimitApiVersion()})`);
    if (apiVersion !== eventRateLimitApiVersion()) {
      throw new EventRateLimitConfigError(`no kind "${String(kind)}" is registered for version "${String(apiVersion)}"`);
    }
    if (kind !== 'Configuration') throw new EventRateLimitConfigError(`no kind "${String(kind)}" is registered for version "${eventRateLimitApiVersion()}"`);
  }
  const raw = getOwn(config, 'limits');
  const errs: string[] = [];
  if (raw !== undefined && raw !== null && !Array.isArray(raw)) throw new EventRateLimitConfigError('limits: must be a list');
  const entries = Array.isArray(raw) ? raw : [];
  if (entries.length === 0) errs.push(`limits: Invalid value: ${quoteValue(raw ?? null)}: must not be empty`);
  const limits: EventLimit[] = [];
  entries.forEach((entry: unknown, i) => {
    const path = `limits[${i}]`;
    if (!isPlainObject(entry)) {
      errs.push(`${path}: Invalid value: ${quoteValue(entry)}: must be an object`);
      return;
    }
    const type = getOwn(entry, 'type');
    if (typeof type !== 'string' || !(LIMIT_TYPES as readonly string[]).includes(type)) {
      errs.push(`${path}.type: Unsupported value: ${quoteValue(type ?? '')}: supported values: ${LIMIT_TYPES.map((t) => `"${t}"`).join(', ')}`);
    }
    const burst = int32Field(entry, 'burst', path, errs);
    const qps = int32Field(entry, 'qps', path, errs);
    const cacheSize = int32Field(entry, 'cacheSize', path, errs);
    if (burst <= 0) errs.push(`${path}.burst: Invalid value: ${burst}: must be positive`);
    if (qps <= 0) errs.push(`${path}.qps: Invalid value: ${qps}: must be positive`);
    if (type !== 'Server' && cacheSize < 0) errs.push(`${path}.cacheSize: Invalid value: ${cacheSize}: must not be negative`);
    limits.push({ type: type as LimitType, qps, burst, cacheSize });
  });
  if (errs.length === 1) throw new EventRateLimitConfigError(errs[0]!);
  if (errs.length > 1) throw new EventRateLimitConfigError(`[${errs.join(', ')}]`);
  return limits;
}

/** A bounded map that forgets the least recently used key first. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  getOrCreate(key: string, make: () => V): V {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      // Re-inserting moves the key to the young end of the Map's order.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const made = make();
    this.entries.set(key, made);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    return made;
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The bucket key of a limit type for an Event write. */
export function limitKey(type: LimitType, attrs: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return attrs.namespace;
    case 'User':
      return attrs.user.username;
    case 'SourceAndObject': {
      const event = attrs.object as JsonMap | undefined;
      const source = isPlainObject(event?.source) ? event.source : undefined;
      const involved = isPlainObject(event?.involvedObject) ? event.involvedObject : undefined;
      return [
        stringAt(source, 'component'),
        stringAt(source, 'host'),
        stringAt(involved, 'kind'),
        stringAt(involved, 'namespace'),
        stringAt(involved, 'name'),
        stringAt(involved, 'uid'),
        stringAt(involved, 'apiVersion'),
      ]
        .map((s) => s ?? '')
        .join('');
    }
  }
}

class LimitEnforcer {
  private readonly single?: TokenBucket;
  private readonly keyed?: LruCache<TokenBucket>;

  constructor(
    private readonly limit: EventLimit,
    private readonly clock: Clock,
  ) {
    if (limit.type === 'Server') this.single = new TokenBucket(limit.qps, limit.burst, clock);
    else this.keyed = new LruCache(limit.cacheSize || DEFAULT_CACHE_SIZE);
  }

  /** undefined when a token was taken; the refusal's text otherwise. */
  accept(attrs: AdmissionAttributes): string | undefined {
    const key = limitKey(this.limit.type, attrs);
    const bucket = this.single ?? this.keyed!.getOrCreate(key, () => new TokenBucket(this.limit.qps, this.limit.burst, this.clock));
    return bucket.tryAccept() ? undefined : `limit reached on type ${this.limit.type} for key ${key}`;
  }
}

/** Limits creates and updates of core Events (dry runs write nothing and are not counted). */
export class EventRateLimit implements AdmissionPlugin {
  readonly name = EVENT_RATE_LIMIT;
  private readonly enforcers: LimitEnforcer[];

  constructor(limits: readonly EventLimit[], clock: Clock) {
    this.enforcers = limits.map((l) => new LimitEnforcer(l, clock));
  }

  handles(operation: AdmissionOperation): boolean {
    return operation === 'CREATE' || operation === 'UPDATE';
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.kind.group !== '' || attrs.kind.kind !== 'Event' || attrs.dryRun) return;
    // Every limit takes its token, refused or not, as Kubernetes' enforcers do.
    const refusals = this.enforcers.map((e) => e.accept(attrs)).filter((r): r is string => r !== undefined);
    if (refusals.length === 0) return;
    const text = refusals.length === 1 ? refusals[0]! : `[${refusals.join(', ')}]`;
    throw new ApiError(429, 'TooManyRequests', `Too many requests: ${text}`);
  }
}
