// Label selector matching for aggregation rules (matchLabels and matchExpressions).
import { labelSelectorAsSelector, type LabelSelectorObject } from '../../apimachinery/labels.js';

export type LabelSelector = LabelSelectorObject;

/** An empty selector matches everything; an invalid one (say, an unknown operator) matches nothing. */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  try {
    return labelSelectorAsSelector(selector).matches(labels);
  } catch {
    return false;
  }
}
