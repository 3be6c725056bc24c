// CEL validation rules of custom resource schemas: the entry point other folders use.
export { compileValidations, type CompiledValidations, type SchemaValidator } from './validation.js';
