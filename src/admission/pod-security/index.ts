// Pod Security admission: `api.ts` (levels, versions, the policy namespace labels ask for),
// `check.ts` (what a check is, shared phrases), `baseline.ts` and `restricted.ts` (the
// checks), `evaluate.ts` (which checks a level and version run, in order), `config.ts`
// (PodSecurityConfiguration), `plugin.ts` (the admission plugin).
export { PodSecurity } from './plugin.js';
export { parsePodSecurityConfig, PodSecurityConfigError, type PodSecurityConfig } from './config.js';
export { evaluatePod, forbiddenDetail } from './evaluate.js';
export type { Level, LevelVersion, Policy } from './api.js';
