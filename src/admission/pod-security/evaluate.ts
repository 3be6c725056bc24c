// Which checks a level and version run, and in what order: baseline checks by identifier,
// then restricted ones by identifier; the restricted level also runs every baseline check
// that no restricted check of that version replaces. Each check runs the implementation of
// the newest version not after the one asked for; `latest`, and any version newer than the
// newest check, run the newest.
import { baselineChecks } from './baseline.js';
import { byteOrder, type Check, type CheckFn, type Finding, type PodView } from './check.js';
import { restrictedChecks } from './restricted.js';
import type { LevelVersion } from './api.js';

export const ALL_CHECKS: readonly Check[] = [...baselineChecks, ...restrictedChecks];

/** The newest minimum version of any check: what `latest` means. */
export const NEWEST_MINOR = Math.max(...ALL_CHECKS.flatMap((c) => c.versions.map((v) => v.minimumMinor)));

const ORDER = [...baselineChecks.map((c) => c.id).sort(byteOrder), ...restrictedChecks.map((c) => c.id).sort(byteOrder)];

function implementationAt(check: Check, minor: number): Check['versions'][number] | undefined {
  let found: Check['versions'][number] | undefined;
  for (const v of check.versions) if (v.minimumMinor <= minor) found = v;
  return found;
}

const plans = new Map<string, CheckFn[]>();

function planFor(level: 'baseline' | 'restricted', minor: number): CheckFn[] {
  const key = `${level}:${minor}`;
  let plan = plans.get(key);
  if (plan) return plan;
  const active = new Map<string, CheckFn>();
  const overridden = new Set<string>();
  for (const check of restrictedChecks) {
    const impl = level === 'restricted' ? implementationAt(check, minor) : undefined;
    if (!impl) continue;
    active.set(check.id, impl.run);
    for (const id of impl.overrides ?? []) overridden.add(id);
  }
  for (const check of baselineChecks) {
    const impl = implementationAt(check, minor);
    if (impl && !overridden.has(check.id)) active.set(check.id, impl.run);
  }
  plan = ORDER.filter((id) => active.has(id)).map((id) => active.get(id)!);
  plans.set(key, plan);
  return plan;
}

/** The findings of a pod against a level and version, in check order; [] when it complies. */
export function evaluatePod(lv: LevelVersion, pod: PodView): Finding[] {
  if (lv.level === 'privileged') return [];
  const minor = lv.version === 'latest' ? NEWEST_MINOR : Math.min(lv.version.minor, NEWEST_MINOR);
  const findings: Finding[] = [];
  for (const run of planFor(lv.level, minor)) {
    const f = run(pod);
    if (f) findings.push(f);
  }
  return findings;
}

/** `reason (detail), reason (detail)`: how the findings read in a refusal, warning or annotation. */
export function forbiddenDetail(findings: readonly Finding[]): string {
  return findings.map((f) => (f.detail ? `${f.reason} (${f.detail})` : f.reason)).join(', ');
}

/** `reason, reason`: the findings without their details (the namespace warnings). */
export function forbiddenReason(findings: readonly Finding[]): string {
  return findings.map((f) => f.reason).join(', ');
}
