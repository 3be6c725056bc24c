// Custom resources: the served definitions of a CustomResourceDefinition and the registrar
// that keeps the resource table in step with the definitions.
export { customResourceDefinitions, defaultDeprecationWarning } from './definitions.js';
export { CustomResourceRegistrar, crdResource, type CustomResourceRegistrarOptions } from './registrar.js';
export { customResourceStrategy, type CustomResourceStrategyOptions } from './strategy.js';
export { customResourceTable, type PrinterColumn } from './table.js';
export { parseJSONPath, JSONPathError, type JSONPath } from './jsonpath.js';
