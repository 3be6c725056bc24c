// Object name rules: the checks a kind picks for `metadata.name`, each also applied to a
// `generateName` prefix (the `prefix` argument), which the random suffix will complete.
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain } from './labels.js';

/** Checks a name (or a generateName prefix); returns the problems found (empty when valid). */
export type NameValidator = (name: string, prefix: boolean) => string[];

/**
 * A prefix may end with a dash, since the suffix follows it: the check sees the prefix with
 * its last two characters replaced by `a`, exactly as Kubernetes masks it.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const dns1123SubdomainName: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const dns1123LabelName: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const dns1035LabelName: NameValidator = (name, prefix) => isDNS1035Label(prefix ? maskTrailingDash(name) : name);

function pathSegmentChars(name: string): string[] {
  const errs: string[] = [];
  for (const c of ['/', '%']) if (name.includes(c)) errs.push(`may not contain '${c}'`);
  return errs;
}

/**
 * Rules every name obeys, because it is a segment of the request path: not `.` or `..`, no
 * `/` or `%`. A prefix may be `.` or `..` (the suffix makes it another name).
 */
export const pathSegmentName: NameValidator = (name, prefix) => {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  return pathSegmentChars(name);
};

/** The path-segment rule with a prefix held to it as well (RBAC objects, APIServices). */
export const strictPathSegmentName: NameValidator = (name) => pathSegmentName(name, false);
