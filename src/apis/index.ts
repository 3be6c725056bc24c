// The built-in kinds: their definitions (served resources, storage, strategies,
// conversions), `--runtime-config`, and the table helpers other layers reuse.
export { builtinResourceDefinitions, compareVersionPriority, type BuiltinOptions } from './definitions.js';
export { parseRuntimeConfig, enabledResources, RuntimeConfigError, type RuntimeConfigEntry } from './runtime-config.js';
export { defaultTableConvertor, humanDuration } from './table.js';
export { makeStrategy, type KindSpec, type StrategyShape } from './strategy.js';
export { namespaceFinalize, namespaceNameLabel } from './core/index.js';
export { surface, SURFACE_RELEASE, type SurfaceResource } from './surface.js';
export { prepareCSRApproval, setCSRRequester, stampCSRConditions } from './certificates/index.js';
export { prepareEphemeralContainersUpdate, validateEphemeralContainersUpdate } from './core/pod.js';
