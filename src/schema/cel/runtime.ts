// The CEL evaluator is loaded on the first rule compiled or value converted, not at
// start-up: importing it costs a large part of the server's start for servers that have no
// CRD rule or admission policy. The load must be synchronous (validation is), so it goes
// through `require`; the package ships a CommonJS build, and the library tells its own
// values apart by global symbols, so which build made a value does not matter. (Regular
// expressions come from `../crd/regex.ts`, loaded the same way.)
import { createRequire } from 'node:module';
import type * as CelModule from '@bufbuild/cel';
import type * as CelExtModule from '@bufbuild/cel/ext';

const load = createRequire(import.meta.url);

let cel: typeof CelModule | undefined;
let celExt: typeof CelExtModule | undefined;

export function celLib(): typeof CelModule {
  return (cel ??= load('@bufbuild/cel') as typeof CelModule);
}

export function celExtLib(): typeof CelExtModule {
  return (celExt ??= load('@bufbuild/cel/ext') as typeof CelExtModule);
}

export function isCelError(v: unknown): v is CelModule.CelError {
  return celLib().isCelError(v);
}
