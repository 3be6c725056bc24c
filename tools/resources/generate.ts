// Turns the upstream 1.27 API surface reference (a JSON list of group-version-resources)
// into `src/apis/surface.json`, the data the built-in resource definitions are built from
// (`src/apis/surface.ts` reads it). Group names stay upstream names here; the definitions
// map them per flavor.
//
// Usage: npm run surface:generate [-- --in <api-resources-1.27.json>] [--out <surface.json>]
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail, INPUT_PATH, validate, type RawResource } from './input.js';

function parseStorage(row: RawResource): { group: string; resource: string; version: string } | undefined {
  if (row.storageVersion === null) return undefined;
  // "v1", "apps/v1", or "v1 (shares core v1 Event storage)": the first word is the group-version.
  const gv = row.storageVersion.split(' ')[0];
  const slash = gv.lastIndexOf('/');
  const group = slash < 0 ? '' : gv.slice(0, slash);
  const version = slash < 0 ? gv : gv.slice(slash + 1);
  if (!/^v\d+((alpha|beta)\d+)?$/.test(version)) fail(`bad storage version ${row.storageVersion} of ${row.resource}`);
  return { group, resource: row.resource, version };
}

function enablement(row: RawResource): 'version' | 'resource' | 'off' {
  if (!row.defaultEnabled) return 'off';
  // Legacy beta resources are enabled one by one while their group-version stays off.
  return row.enablement.startsWith('legacy beta resource') ? 'resource' : 'version';
}

function entry(row: RawResource): Record<string, unknown> {
  const out: Record<string, unknown> = {
    group: row.group,
    version: row.version,
    resource: row.resource,
    kind: row.kind,
    singularName: row.singularName,
    namespaced: row.namespaced,
    shortNames: row.shortNames,
    categories: row.categories,
    verbs: row.verbs,
    subresources: row.subresources.map((s) => {
      const sub: Record<string, unknown> = { name: s.name, kind: s.kind, verbs: s.verbs };
      if (s.group !== undefined) sub.group = s.group;
      if (s.version !== undefined) sub.version = s.version;
      return sub;
    }),
    defaultEnabled: enablement(row),
    preferred: row.preferredVersion === true,
  };
  if (row.deprecated) {
    const dep: Record<string, string> = {};
    if (row.deprecatedIn) dep.since = row.deprecatedIn;
    if (row.removedIn) dep.removedIn = row.removedIn;
    if (row.replacement) dep.replacement = `${row.replacement.groupVersion} ${row.replacement.kind}`;
    out.deprecated = dep;
  } else if (row.deprecatedIn || row.removedIn) {
    const plan: Record<string, string> = {};
    if (row.deprecatedIn) plan.deprecatedIn = row.deprecatedIn;
    if (row.removedIn) plan.removedIn = row.removedIn;
    out.lifecycle = plan;
  }
  if (row.introducedIn) out.introducedIn = row.introducedIn;
  const storage = parseStorage(row);
  if (storage) out.storage = storage;
  if (row.etcdResourcePrefix) out.etcdPrefix = row.etcdResourcePrefix;
  return out;
}

/** The output: an array of resources, two-space indented, ending in a newline. */
export function render(rows: RawResource[]): string {
  return `${JSON.stringify(rows.map(entry), null, 2)}\n`;
}

function main(argv: string[]): void {
  let input = INPUT_PATH;
  let output = resolve('src/apis/surface.json');
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (argv[i] === '--in' && value) input = resolve(value);
    else if (argv[i] === '--out' && value) output = resolve(value);
    else {
      process.stderr.write('usage: generate [--in <api-resources-1.27.json>] [--out <surface.json>]\n');
      process.exit(2);
    }
  }
  const rows = validate(JSON.parse(readFileSync(input, 'utf8')));
  writeFileSync(output, render(rows));
  process.stdout.write(`wrote ${rows.length} resources to ${output}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main(process.argv.slice(2));
