// What a Pod Security check is, and the phrases their findings share. A check has an
// identifier, a level and one implementation per policy version it changed in; a finding
// is a reason (`host namespaces`) and a detail (`hostNetwork=true`), shown as
// `reason (detail)`, as the Pod Security Standards word them.
import { isPlainObject } from '../../apimachinery/types.js';
import { mapsAt, stringAt, type JsonMap } from '../util.js';

export interface Finding {
  reason: string;
  detail: string;
}

/** The pod (or pod template) a check reads: its annotations and its spec. */
export interface PodView {
  annotations: Readonly<Record<string, string>>;
  spec: JsonMap;
}

export type CheckFn = (pod: PodView) => Finding | undefined;

export interface VersionedCheck {
  /** The first `v1.<minor>` policy version this implementation applies to. */
  minimumMinor: number;
  run: CheckFn;
  /** Baseline checks this restricted check replaces at the restricted level. */
  overrides?: readonly string[];
}

export interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** Strictly increasing minimum versions. */
  versions: readonly VersionedCheck[];
}

export interface Container {
  name: string;
  /** The container's securityContext ({} when unset). */
  sc: JsonMap;
  /** Whether securityContext is set at all. */
  hasSC: boolean;
  raw: JsonMap;
}

/** Init containers, containers, then ephemeral containers, as Pod Security visits them. */
export function containersOf(spec: JsonMap): Container[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((k) =>
    mapsAt(spec, k).map((c) => ({ name: stringAt(c, 'name') ?? '', sc: isPlainObject(c.securityContext) ? c.securityContext : {}, hasSC: isPlainObject(c.securityContext), raw: c })),
  );
}

/** The pod's securityContext ({} when unset). */
export function podSecurityContext(spec: JsonMap): JsonMap {
  return isPlainObject(spec.securityContext) ? spec.securityContext : {};
}

/** The object at `obj[key]`, undefined when absent or null (a nil pointer in Go). */
export function objectAt(obj: JsonMap, key: string): JsonMap | undefined {
  const v = obj[key];
  return isPlainObject(v) ? v : undefined;
}

export function isWindowsPod(spec: JsonMap): boolean {
  return objectAt(spec, 'os')?.name === 'windows';
}

/** `"a", "b"` */
export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` / `containers "a", "b"`. */
export function containersPhrase(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Distinct values in Go's sorted-set order (byte order of their UTF-8, which for these is code unit order). */
export function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(byteOrder);
}

export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** `pod`, `container "a"` or `pod and containers "a", "b"`: who set a forbidden value. */
export function settersPhrase(pod: boolean, containers: readonly string[]): string | undefined {
  const setters: string[] = [];
  if (pod) setters.push('pod');
  if (containers.length > 0) setters.push(containersPhrase(containers));
  return setters.length > 0 ? setters.join(' and ') : undefined;
}
