// Label selector matching for aggregation rules (matchLabels and matchExpressions).

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** An empty selector matches everything; an unknown operator matches nothing. */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(l, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(l[req.key]!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(l[req.key]!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
