// Pod Security levels and policy versions, and how a namespace's labels become the policy
// its pods are judged by (the `pod-security.<long domain>/{enforce,audit,warn}[-version]`
// labels over the configured defaults), as the Pod Security admission of 1.27 reads them.
import { longDomainKey } from '../../naming/index.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
export const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: `v1.<minor>`, or `latest` (the newest checks this server has). */
export type Version = { minor: number } | 'latest';

export interface LevelVersion {
  level: Level;
  version: Version;
}

export type Mode = 'enforce' | 'audit' | 'warn';
export const MODES: readonly Mode[] = ['enforce', 'audit', 'warn'];

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

/** A label the policy could not read: where, the value, and why (a field error's parts). */
export interface LabelError {
  label: string;
  value: string;
  detail: string;
}

export const LATEST: LevelVersion = { level: 'privileged', version: 'latest' };
export const PRIVILEGED_POLICY: Policy = { enforce: LATEST, audit: LATEST, warn: LATEST };

/** `pod-security.<long domain>/<mode>` or `.../<mode>-version`. */
export function levelLabel(mode: Mode): string {
  return longDomainKey(mode, 'pod-security');
}
export function versionLabel(mode: Mode): string {
  return longDomainKey(`${mode}-version`, 'pod-security');
}
/** Audit annotations are the same prefix: `pod-security.<long domain>/<key>`. */
export function auditAnnotationKey(key: 'enforce-policy' | 'audit-violations' | 'exempt' | 'error'): string {
  return longDomainKey(key, 'pod-security');
}

export function versionString(v: Version): string {
  return v === 'latest' ? 'latest' : `v1.${v.minor}`;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function isLevel(s: string): s is Level {
  return (LEVELS as readonly string[]).includes(s);
}

/** `latest` or `v1.<minor>` (no leading zeros); undefined otherwise. */
export function parseVersion(s: string): Version | undefined {
  if (s === 'latest') return 'latest';
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(s);
  // Beyond int64 the number does not parse in Go either.
  if (!m || m[1]!.length > 18) return undefined;
  return { minor: Number(m[1]) };
}

const LEVEL_ERROR = `must be one of ${LEVELS.join(', ')}`;
const VERSION_ERROR = 'must be "latest" or "v1.x"';

export function sameVersion(a: Version, b: Version): boolean {
  return a === 'latest' || b === 'latest' ? a === b : a.minor === b.minor;
}

/** 0 when equal, -1 when `a` is less strict than `b`, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/**
 * The policy a namespace's labels ask for, over `defaults`. A label that does not parse is
 * reported and read as Pod Security does: an unreadable enforce level enforces `restricted`
 * (failing closed), unreadable audit and warn levels are `privileged`, an unreadable version
 * is `latest`. Without a warn label, a stricter explicit enforce level also warns.
 */
export function policyFromLabels(labels: Readonly<Record<string, string>>, defaults: Policy): { policy: Policy; errors: LabelError[] } {
  const policy: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: LabelError[] = [];
  const has = (k: string): boolean => Object.hasOwn(labels, k);
  let enforceLevelSet = false;
  for (const mode of MODES) {
    const lk = levelLabel(mode);
    if (has(lk)) {
      const value = labels[lk]!;
      if (isLevel(value)) {
        policy[mode].level = value;
        if (mode === 'enforce') enforceLevelSet = true;
      } else {
        policy[mode].level = mode === 'enforce' ? 'restricted' : 'privileged';
        errors.push({ label: lk, value, detail: LEVEL_ERROR });
      }
    }
    const vk = versionLabel(mode);
    if (has(vk)) {
      const value = labels[vk]!;
      const v = parseVersion(value);
      policy[mode].version = v ?? 'latest';
      if (!v) errors.push({ label: vk, value, detail: VERSION_ERROR });
    }
  }
  if (!has(levelLabel('warn')) && enforceLevelSet && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!has(versionLabel('warn'))) policy.warn.version = policy.enforce.version;
  }
  return { policy, errors };
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === 'privileged' && p.audit.level === 'privileged' && p.warn.level === 'privileged';
}

/** Both privileged, or the same level and version. */
export function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === 'privileged' && b.level === 'privileged') || (a.level === b.level && sameVersion(a.version, b.version));
}
