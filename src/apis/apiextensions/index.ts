// CustomResourceDefinitions: name defaults, stored versions and the essential checks.
import { requiredField, type FieldError } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { KindSpec } from '../strategy.js';
import { arr, at, child, meta, objs, setDefault, str } from '../util.js';
import { oneOf } from '../validation.js';

/** The storage version's name, recorded in `status.storedVersions` once it is used. */
function storageVersionOf(o: KubeObject): string | undefined {
  return str(objs(at(o, 'spec.versions')).find((v) => v.storage === true)?.name);
}

function recordStoredVersion(o: KubeObject, previous: unknown): void {
  const stored = arr(previous).map(String);
  const v = storageVersionOf(o);
  if (v && !stored.includes(v)) stored.push(v);
  child(o, 'status').storedVersions = stored;
}

const customResourceDefinitions: KindSpec = {
  tracksGeneration: true,
  allowUnconditionalUpdate: false,
  defaults(o) {
    const spec = child(o, 'spec');
    const names = child(spec, 'names');
    if (typeof names.kind === 'string' && names.kind !== '') {
      setDefault(names, 'singular', names.kind.toLowerCase());
      setDefault(names, 'listKind', `${names.kind}List`);
    }
    setDefault(child(spec, 'conversion'), 'strategy', 'None');
  },
  prepareForCreate(o) {
    o.status = { acceptedNames: { plural: '', kind: '' } };
    recordStoredVersion(o, []);
  },
  prepareForUpdate(o, old) {
    recordStoredVersion(o, at(old, 'status.storedVersions'));
  },
  validate(o) {
    const errs: FieldError[] = [];
    const group = str(at(o, 'spec.group')) ?? '';
    const plural = str(at(o, 'spec.names.plural')) ?? '';
    if (group === '') errs.push(requiredField('spec.group'));
    else if (!group.includes('.')) errs.push({ type: 'FieldValueInvalid', field: 'spec.group', detail: `Invalid value: ${JSON.stringify(group)}: should be a domain with at least one dot` });
    if (plural === '') errs.push(requiredField('spec.names.plural'));
    if (!str(at(o, 'spec.names.kind'))) errs.push(requiredField('spec.names.kind'));
    if (group !== '' && plural !== '' && meta(o).name !== `${plural}.${group}`) {
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', detail: `Invalid value: ${JSON.stringify(meta(o).name ?? '')}: must be spec.names.plural+"."+spec.group` });
    }
    errs.push(...oneOf(at(o, 'spec.scope'), ['Cluster', 'Namespaced'], 'spec.scope', true));
    const versions = objs(at(o, 'spec.versions'));
    if (versions.length === 0) errs.push(requiredField('spec.versions', 'must have exactly one version marked as storage version'));
    else if (versions.filter((v) => v.storage === true).length !== 1) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.versions', detail: `Invalid value: ${JSON.stringify(versions)}: must have exactly one version marked as storage version` });
    }
    return errs;
  },
};

export const apiextensionsKinds: Record<string, KindSpec> = {
  CustomResourceDefinition: customResourceDefinitions,
};
