// Test helpers: the strategy and conversion of a served resource.
import type { ResourceDefinition, Strategy } from '../rest/index.js';
import { flavor, type Flavor } from '../naming/index.js';
import { builtinResourceDefinitions } from '../apis/definitions.js';

// Per flavor: the definitions name their groups in the flavor they were built in.
const cached = new Map<Flavor, ResourceDefinition[]>();

export function definitionOf(group: string, resource: string, version?: string): ResourceDefinition {
  let defs = cached.get(flavor());
  if (!defs) cached.set(flavor(), (defs = builtinResourceDefinitions({ runtimeConfig: 'api/all=true' })));
  const d = defs.find((x) => x.group === group && x.resource === resource && (version === undefined || x.version === version));
  if (!d) throw new Error(`no definition for ${group}/${resource}`);
  return d;
}

export function strategyOf(group: string, resource: string): Strategy {
  const s = definitionOf(group, resource).strategy;
  if (!s) throw new Error(`no strategy for ${group}/${resource}`);
  return s;
}
