// The generator's input: the reference list of the Kubernetes 1.27 API surface, one row per
// group-version-resource (discovery's fields, plus default enablement, deprecation and the
// storage version), kept out of the repository and fetched by `npm run surface:fetch`.
import { fileURLToPath } from 'node:url';

/** The input file's name, in `--from` directories, at `--url` and in the input folder. */
export const INPUT_FILE = 'api-resources-1.27.json';

/** Where `surface:fetch` puts the input and `surface:generate` reads it (not committed). */
export const INPUT_PATH = fileURLToPath(new URL(`../../../tools/resources/input/${INPUT_FILE}`, import.meta.url));

export interface RawSubresource {
  name: string;
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

export interface RawResource {
  group: string;
  version: string;
  kind: string;
  resource: string;
  singularName: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  subresources: RawSubresource[];
  deprecated: boolean;
  deprecatedIn?: string;
  removedIn?: string;
  introducedIn?: string;
  replacement?: { groupVersion: string; kind: string } | null;
  defaultEnabled: boolean;
  preferredVersion?: boolean;
  enablement: string;
  storageVersion: string | null;
  etcdResourcePrefix?: string;
}

export function fail(message: string): never {
  throw new Error(`api surface input: ${message}`);
}

export function validate(rows: unknown): RawResource[] {
  if (!Array.isArray(rows)) fail('expected a JSON array');
  for (const r of rows as RawResource[]) {
    for (const k of ['group', 'version', 'kind', 'resource', 'singularName'] as const) {
      if (typeof r[k] !== 'string') fail(`row without string ${k}: ${JSON.stringify(r).slice(0, 120)}`);
    }
    if (!Array.isArray(r.verbs) || !Array.isArray(r.subresources)) fail(`row ${r.resource} without verbs/subresources`);
  }
  return rows as RawResource[];
}
