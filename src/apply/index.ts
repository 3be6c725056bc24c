// Server-side apply: field sets, the FieldsV1 encoding, managed fields, the apply merge and
// its conflicts. Pure functions and the FieldManager that the Store and the PATCH handler call.

export { FieldSet, formatPath, fieldElement, keyElement, valueElement, indexElement, type FieldPath, type PathElement } from './fieldpath.js';
export { ApplySchema, UNTYPED, type ApplyType, type ApplyTypeLookup } from './schema.js';
export { toFieldSet, compare, merge, removeFields, type Comparison } from './typed-value.js';
export {
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  capUpdateManagers,
  DEFAULT_MAX_UPDATE_MANAGERS,
  ANCIENT_CHANGES_MANAGER,
  type ManagedFields,
  type ManagerEntry,
  type ManagedOperation,
} from './managed-fields.js';
export { FieldManager, conflictError, BEFORE_FIRST_APPLY_MANAGER, type Conflict, type FieldManagerOptions } from './field-manager.js';
export { lastAppliedAnnotation } from './last-applied.js';
export { catalogApplySchema, fieldManagerForKind, emptyObjectOf, managerFromUserAgent, type KindFieldManagerOptions } from './catalog.js';
export { decodeApplyConfiguration, decodeApplyConfigurationAsync, validateApplyOptions, fieldManagerErrors, parseForce, checkApplyVersion } from './request.js';
export { CustomResourceApplySchema, customResourceApplySchema } from './custom-resource.js';
