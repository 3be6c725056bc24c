// The plugin's entry of the admission configuration: a PodSecurityConfiguration
// (`pod-security.admission.config.<domain>/v1`, also v1beta1 and v1alpha1) with the policy of
// namespaces that set no labels and the exempt users, namespaces and runtime classes.
// Without one, every level is `privileged:latest` and nothing is exempt.
import { getOwn } from '../../apimachinery/own.js';
import { isPlainObject } from '../../apimachinery/types.js';
import { dns1123LabelName, dns1123SubdomainName } from '../../apimachinery/names.js';
import { group } from '../../naming/index.js';
import { goQuote } from '../../schema/crd/go-format.js';
import { isLevel, LEVELS, parseVersion, type Policy } from './api.js';

export interface PodSecurityConfig {
  defaults: Policy;
  exemptions: { usernames: ReadonlySet<string>; namespaces: ReadonlySet<string>; runtimeClasses: ReadonlySet<string> };
}

export const DEFAULT_CONFIG: PodSecurityConfig = {
  defaults: { enforce: { level: 'privileged', version: 'latest' }, audit: { level: 'privileged', version: 'latest' }, warn: { level: 'privileged', version: 'latest' } },
  exemptions: { usernames: new Set(), namespaces: new Set(), runtimeClasses: new Set() },
};

const VERSIONS = ['v1', 'v1beta1', 'v1alpha1'];

export class PodSecurityConfigError extends Error {
  constructor(message: string) {
    super(`couldn't init admission plugin "PodSecurity" from --admission-control-config-file: ${message}`);
    this.name = 'PodSecurityConfigError';
  }
}

function stringField(obj: Record<string, unknown>, key: string, path: string): string {
  const v = getOwn(obj, key);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new PodSecurityConfigError(`${path}: must be a string`);
  return v;
}

function stringList(obj: Record<string, unknown>, key: string, path: string): string[] {
  const v = getOwn(obj, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new PodSecurityConfigError(`${path}: must be a list of strings`);
  return v as string[];
}

/** Names listed once each, every one valid; errors as Kubernetes' field errors. */
function exemptionSet(list: string[], path: string, check: (s: string) => string[], errs: string[]): Set<string> {
  const seen = new Set<string>();
  list.forEach((name, i) => {
    const problems = check(name);
    if (problems.length > 0) errs.push(`${path}[${i}]: Invalid value: ${goQuote(name)}: ${problems.join(', ')}`);
    else if (seen.has(name)) errs.push(`${path}[${i}]: Duplicate value: ${goQuote(name)}`);
    else seen.add(name);
  });
  return seen;
}

/** Reads and checks the configuration ({} is the default one); throws PodSecurityConfigError. */
export function parsePodSecurityConfig(config: Readonly<Record<string, unknown>>): PodSecurityConfig {
  if (Object.keys(config).length === 0) return DEFAULT_CONFIG;
  const apiVersion = getOwn(config, 'apiVersion');
  const kind = getOwn(config, 'kind');
  const accepted = VERSIONS.map((v) => `${group('pod-security.admission.config')}/${v}`);
  if (kind !== 'PodSecurityConfiguration' || typeof apiVersion !== 'string' || !accepted.includes(apiVersion)) {
    throw new PodSecurityConfigError(`expected kind PodSecurityConfiguration in ${accepted.join(', ')}, got ${goQuote(String(kind ?? ''))} in ${goQuote(String(apiVersion ?? ''))}`);
  }
  const rawDefaults = getOwn(config, 'defaults') ?? {};
  const rawExemptions = getOwn(config, 'exemptions') ?? {};
  if (!isPlainObject(rawDefaults)) throw new PodSecurityConfigError('defaults: must be an object');
  if (!isPlainObject(rawExemptions)) throw new PodSecurityConfigError('exemptions: must be an object');
  const errs: string[] = [];
  const defaults: Policy = { enforce: { level: 'privileged', version: 'latest' }, audit: { level: 'privileged', version: 'latest' }, warn: { level: 'privileged', version: 'latest' } };
  // The documented order: enforce, warn, audit.
  for (const mode of ['enforce', 'warn', 'audit'] as const) {
    const level = stringField(rawDefaults, mode, `defaults.${mode}`) || 'privileged';
    const version = stringField(rawDefaults, `${mode}-version`, `defaults.${mode}-version`) || 'latest';
    if (isLevel(level)) defaults[mode].level = level;
    else errs.push(`defaults.${mode}: Invalid value: ${goQuote(level)}: must be one of ${LEVELS.join(', ')}`);
    const v = parseVersion(version);
    if (v) defaults[mode].version = v;
    else errs.push(`defaults.${mode}-version: Invalid value: ${goQuote(version)}: must be "latest" or "v1.x"`);
  }
  const namespaces = exemptionSet(stringList(rawExemptions, 'namespaces', 'exemptions.namespaces'), 'exemptions.namespaces', (s) => dns1123LabelName(s, false), errs);
  const runtimeClasses = exemptionSet(stringList(rawExemptions, 'runtimeClasses', 'exemptions.runtimeClasses'), 'exemptions.runtimeClasses', (s) => dns1123SubdomainName(s, false), errs);
  const usernames = exemptionSet(stringList(rawExemptions, 'usernames', 'exemptions.usernames'), 'exemptions.usernames', (s) => (s === '' ? ['username must not be empty'] : []), errs);
  if (errs.length === 1) throw new PodSecurityConfigError(errs[0]!);
  if (errs.length > 1) throw new PodSecurityConfigError(`[${errs.join(', ')}]`);
  return { defaults, exemptions: { usernames, namespaces, runtimeClasses } };
}
