// Feature gates (`--feature-gates`): named switches with a maturity stage and a default, as
// the 1.27 components know them. One FeatureGate per server, passed to whatever a gate
// changes, so several servers in one process may differ.

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA (or deprecated) gates that may no longer be set to anything but their default. */
  lockToDefault?: boolean;
}

/** A `--feature-gates` value the server cannot start with. */
export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

/** The switches `AllAlpha=` and `AllBeta=` set every gate of that stage not named on its own. */
const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/**
 * Parses the flag's text, `Name=bool,Name=bool`, into ordered pairs. The value is required and
 * read as Go's ParseBool reads it.
 */
export function parseFeatureGates(text: string): [string, boolean][] {
  const out: [string, boolean][] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) out.push([name, true]);
    else if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) out.push([name, false]);
    else throw new FeatureGateError(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return out;
}

export class FeatureGate {
  private readonly explicit = new Map<string, boolean>();
  private allAlpha: boolean | undefined;
  private allBeta: boolean | undefined;

  constructor(private readonly specs: Readonly<Record<string, FeatureSpec>>) {}

  /**
   * Applies `--feature-gates` text on top of what is set. Throws FeatureGateError, changing
   * nothing, on an unknown gate or a locked one set against its default; returns the warnings
   * the components print for GA and deprecated gates.
   */
  set(text: string): string[] {
    const pairs = parseFeatureGates(text);
    const warnings: string[] = [];
    for (const [name, value] of pairs) {
      if (name === ALL_ALPHA || name === ALL_BETA) continue;
      const spec = Object.hasOwn(this.specs, name) ? this.specs[name] : undefined;
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && value !== spec.default) {
        throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    for (const [name, value] of pairs) {
      if (name === ALL_ALPHA) this.allAlpha = value;
      else if (name === ALL_BETA) this.allBeta = value;
      else this.explicit.set(name, value);
    }
    return warnings;
  }

  /** Whether the gate is on. Asking for a gate nobody declared is a programming error. */
  enabled(name: string): boolean {
    const spec = Object.hasOwn(this.specs, name) ? this.specs[name] : undefined;
    if (!spec) throw new Error(`feature gate ${JSON.stringify(name)} is not known`);
    const set = this.explicit.get(name);
    if (set !== undefined) return set;
    if (spec.stage === 'ALPHA' && this.allAlpha !== undefined) return this.allAlpha;
    if (spec.stage === 'BETA' && this.allBeta !== undefined) return this.allBeta;
    return spec.default;
  }

  /** Every known gate with its stage and state, sorted by name (the `kubernetes_feature_enabled` metric). */
  all(): { name: string; stage: FeatureStage; enabled: boolean }[] {
    return Object.keys(this.specs)
      .sort()
      .map((name) => ({ name, stage: this.specs[name]!.stage, enabled: this.enabled(name) }));
  }
}

/**
 * The 1.27 gates whose switch changes what this server or its controllers do. A gate the
 * server does not act on is not listed, so setting it fails at start rather than doing nothing.
 */
export const KNOWN_FEATURES: Readonly<Record<string, FeatureSpec>> = {
  // kube-apiserver's generic gates (k8s.io/apiserver).
  APIListChunking: { default: true, stage: 'BETA' },
  APIPriorityAndFairness: { default: true, stage: 'BETA' },
  AggregatedDiscoveryEndpoint: { default: true, stage: 'BETA' },
  AdvancedAuditing: { default: true, stage: 'GA', lockToDefault: true },
  CustomResourceValidationExpressions: { default: true, stage: 'BETA' },
  DryRun: { default: true, stage: 'GA', lockToDefault: true },
  EfficientWatchResumption: { default: true, stage: 'GA', lockToDefault: true },
  OpenAPIV3: { default: true, stage: 'GA', lockToDefault: true },
  RemainingItemCount: { default: true, stage: 'BETA' },
  RemoveSelfLink: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideApply: { default: true, stage: 'GA', lockToDefault: true },
  ServerSideFieldValidation: { default: true, stage: 'GA', lockToDefault: true },
  ValidatingAdmissionPolicy: { default: false, stage: 'ALPHA' },
  WatchBookmark: { default: true, stage: 'GA', lockToDefault: true },
  // kube-apiserver's own gates (k8s.io/kubernetes/pkg/features).
  APISelfSubjectReview: { default: true, stage: 'BETA' },
  PDBUnhealthyPodEvictionPolicy: { default: true, stage: 'BETA' },
  PodDisruptionConditions: { default: true, stage: 'BETA' },
  SecurityContextDeny: { default: false, stage: 'ALPHA' },
};

/** A fresh gate set with the 1.27 defaults. */
export function defaultFeatureGate(): FeatureGate {
  return new FeatureGate(KNOWN_FEATURES);
}
