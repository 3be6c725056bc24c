// `--runtime-config`: which group-versions and resources are served. The default comes from
// the surface data (stable group-versions on, legacy beta resources on one by one, the
// rest off); the flag's entries apply on top, in kube-apiserver's order: the `api/<level>`
// switches first, then group-versions, then single resources.
import { fromKubernetesGroup, group } from '../naming/index.js';
import type { SurfaceResource } from './surface.js';

export interface RuntimeConfigEntry {
  /** `api/all`, `api/ga`, `api/beta`, `api/alpha`, `<group>/<version>` or `<group>/<version>/<resource>`. */
  key: string;
  enabled: boolean;
}

const LEVEL_KEYS = ['api/all', 'api/ga', 'api/beta', 'api/alpha'] as const;
type LevelKey = (typeof LEVEL_KEYS)[number];

/** A `--runtime-config` value the server cannot start with. */
export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(`invalid --runtime-config: ${message}`);
    this.name = 'RuntimeConfigError';
  }
}

function runtimeConfigError(message: string): RuntimeConfigError {
  return new RuntimeConfigError(message);
}

/**
 * Parses the flag's value: comma-separated `<key>[=<value>]`, a missing value meaning true.
 * Values are booleans as Go's ParseBool reads them. Later entries for a key win.
 */
export function parseRuntimeConfig(value: string): RuntimeConfigEntry[] {
  const byKey = new Map<string, boolean>();
  for (const raw of value.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const text = eq < 0 ? '' : item.slice(eq + 1).trim();
    if (key === '') throw runtimeConfigError(`empty key in "${item}"`);
    byKey.delete(key);
    byKey.set(key, parseBool(key, text));
  }
  return [...byKey].map(([key, enabled]) => ({ key, enabled }));
}

function parseBool(key: string, text: string): boolean {
  if (text === '') return true;
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw runtimeConfigError(`invalid value of ${key}: ${text}`);
}

function level(version: string): 'alpha' | 'beta' | 'ga' {
  return version.includes('alpha') ? 'alpha' : version.includes('beta') ? 'beta' : 'ga';
}

const gvKey = (group: string, version: string): string => `${group}/${version}`;

/**
 * The resources of `surface` that are served under `entries`. Group names in keys are the
 * served (flavor) names; `v1` and `api/v1` name the core group. An unknown group-version
 * or resource is an error, as is a key of another shape.
 */
export function enabledResources(surface: readonly SurfaceResource[], entries: RuntimeConfigEntry[]): SurfaceResource[] {
  const versions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  const known = new Map<string, SurfaceResource[]>();
  for (const r of surface) {
    const gv = gvKey(fromKubernetesGroup(r.group), r.version);
    known.set(gv, [...(known.get(gv) ?? []), r]);
    if (r.defaultEnabled === 'version') versions.set(gv, true);
    else if (!versions.has(gv)) versions.set(gv, false);
    if (r.defaultEnabled === 'resource') resources.set(`${gv}/${r.resource}`, true);
  }

  const setVersion = (gv: string, on: boolean): void => {
    versions.set(gv, on);
    // A group-version switch overrides earlier per-resource choices in it.
    for (const key of [...resources.keys()]) if (key.startsWith(`${gv}/`)) resources.delete(key);
  };

  for (const lk of LEVEL_KEYS) {
    const e = entries.find((x) => x.key === lk);
    if (!e) continue;
    for (const gv of known.keys()) {
      const lv = level(gv.slice(gv.lastIndexOf('/') + 1));
      if (matchesLevel(lk, lv)) setVersion(gv, e.enabled);
    }
  }

  const specific = entries
    .filter((e) => !(LEVEL_KEYS as readonly string[]).includes(e.key))
    .map((e) => ({ ...e, parts: normalizeKey(e.key) }));
  // Group-versions before resources, so `g/v=false,g/v/r=true` serves just r.
  specific.sort((a, b) => a.parts.length - b.parts.length);
  for (const e of specific) {
    const gv = gvKey(e.parts[0], e.parts[1]);
    // Registered in kube-apiserver's scheme but served by nothing: the switch is accepted and changes nothing.
    if (registeredUnserved().has(gv)) continue;
    const rows = known.get(gv);
    if (!rows) throw runtimeConfigError(`group version ${gv === '/v1' ? 'v1' : gv} that has not been registered`);
    if (e.parts.length === 2) {
      setVersion(gv, e.enabled);
    } else {
      const resource = e.parts[2];
      if (!rows.some((r) => r.resource === resource)) throw runtimeConfigError(`unknown resource ${resource} in ${gv}`);
      resources.set(`${gv}/${resource}`, e.enabled);
    }
  }

  return surface.filter((r) => {
    const gv = gvKey(fromKubernetesGroup(r.group), r.version);
    const explicit = resources.get(`${gv}/${r.resource}`);
    return explicit ?? versions.get(gv) ?? false;
  });
}

/** Group-versions kube-apiserver knows without serving them: `imagepolicy.<domain>/v1alpha1` (the ImageReview the image policy plugin sends). */
function registeredUnserved(): Set<string> {
  return new Set([gvKey(group('imagepolicy'), 'v1alpha1')]);
}

function matchesLevel(key: LevelKey, lv: 'alpha' | 'beta' | 'ga'): boolean {
  return key === 'api/all' || key === `api/${lv}`;
}

/** `[group, version, resource?]` of a key; the core group is `''`. */
function normalizeKey(key: string): string[] {
  const tokens = key.split('/');
  if (tokens.length === 1 && tokens[0] === 'v1') return ['', 'v1'];
  if (tokens[0] === 'api' && tokens.length >= 2 && tokens.length <= 3 && tokens[1] === 'v1') return ['', ...tokens.slice(1)];
  if (tokens.length < 2 || tokens.length > 3 || tokens.some((t) => t === '')) {
    throw runtimeConfigError(`invalid key ${key}`);
  }
  return tokens;
}
