// The cluster role aggregation controller: a ClusterRole with an aggregationRule gets the
// union of the rules of every ClusterRole its selectors match, kept current as roles change.
import type { KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { rulesOf } from './authorizer.js';
import { rbacResource } from './cache.js';
import type { PolicyRule } from './rules.js';
import { labelSelectorMatches, type LabelSelector } from './selector.js';
import { deepEqual } from '../../apimachinery/equality.js';

export function aggregationSelectors(role: KubeObject): LabelSelector[] | undefined {
  const rule = role['aggregationRule'];
  if (!rule || typeof rule !== 'object') return undefined;
  const sel = (rule as { clusterRoleSelectors?: unknown }).clusterRoleSelectors;
  return Array.isArray(sel) ? (sel as LabelSelector[]) : undefined;
}

// By name as the aggregation controller orders them: plain string order (Go's `<` on the
// names' bytes; names are ASCII), not a locale's, which also ignores punctuation such as ':'.
function sortedByName(all: KubeObject[]): KubeObject[] {
  const name = (o: KubeObject): string => o.metadata?.name ?? '';
  return [...all].sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
}

/** The rules an aggregated role should hold: matching roles sorted by name, duplicates dropped. */
export function aggregatedRules(role: KubeObject, all: KubeObject[]): PolicyRule[] {
  return rulesFromSorted(role, sortedByName(all));
}

/** `aggregatedRules` over roles already sorted by name, so that a pass sorts them once. */
function rulesFromSorted(role: KubeObject, sorted: KubeObject[]): PolicyRule[] {
  const selectors = aggregationSelectors(role) ?? [];
  const name = role.metadata?.name;
  const rules: PolicyRule[] = [];
  // Rules already taken, by their fields: a rule is compared only with the ones that list the
  // same values (aggregated roles gather hundreds of rules at every start).
  const taken = new Map<string, PolicyRule[]>();
  for (const selector of selectors) {
    for (const other of sorted) {
      if (other.metadata?.name === name || !labelSelectorMatches(selector, other.metadata?.labels)) continue;
      for (const rule of rulesOf(other)) {
        const key = JSON.stringify([rule.verbs, rule.apiGroups, rule.resources, rule.resourceNames, rule.nonResourceURLs]);
        const same = taken.get(key);
        if (same?.some((r) => deepEqual(r, rule))) continue;
        if (same) same.push(rule);
        else taken.set(key, [rule]);
        rules.push(rule);
      }
    }
  }
  return rules;
}

/** Runs the aggregation pass whenever a ClusterRole changes; a pass writes only roles that differ. */
export class AggregationController {
  private pending = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: ApiClient,
    private readonly listClusterRoles: () => KubeObject[],
  ) {}

  /** Schedules a pass; passes never overlap and requests during one coalesce into the next. */
  enqueue(): void {
    if (this.running) {
      this.pending = true;
      return;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.pending) {
        this.pending = false;
        this.enqueue();
      }
    });
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    const all = this.listClusterRoles();
    const wanted = aggregateAll(all);
    // Each changed role written once, all together (one group commit in the store).
    await Promise.all(
      wanted.map(async (role, i) => {
        if (role === all[i]) return;
        try {
          await this.client.update(rbacResource('clusterroles'), '', role);
        } catch {
          // A conflict means a newer version arrives through the watch and triggers a new pass.
        }
      }),
    );
  }
}

/**
 * Every role with its aggregated rules, the same object where nothing changes. Aggregated
 * roles gather each other's rules (the default admin gathers edit's, which gathers view's):
 * the rules are computed again from the changed roles until nothing changes, so that one
 * pass has what passes one after another (each waiting for the last one's writes) would reach.
 */
export function aggregateAll(all: KubeObject[]): KubeObject[] {
  let current = all;
  // A chain of aggregations is at most as long as there are roles.
  for (let round = 0; round <= all.length; round++) {
    let changed = false;
    const sorted = sortedByName(current);
    const next = current.map((role) => {
      if (!aggregationSelectors(role)) return role;
      const want = rulesFromSorted(role, sorted);
      if (deepEqual(rulesOf(role), want) && Array.isArray(role['rules'])) return role;
      changed = true;
      return { ...role, rules: want };
    });
    if (!changed) break;
    current = next;
  }
  return current;
}
