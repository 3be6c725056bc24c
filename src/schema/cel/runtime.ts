// The CEL evaluator and RE2 are loaded on the first rule compiled or value converted, not
// at start-up: importing them costs a large part of the server's start for servers that
// have no CRD rule or admission policy. The load must be synchronous (validation is), so
// it goes through `require`; both packages ship a CommonJS build, and the library tells
// its own values apart by global symbols, so which build made a value does not matter.
import { createRequire } from 'node:module';
import type * as CelModule from '@bufbuild/cel';
import type * as CelExtModule from '@bufbuild/cel/ext';
import type * as Re2Module from '@bufbuild/re2';

const load = createRequire(import.meta.url);

let cel: typeof CelModule | undefined;
let celExt: typeof CelExtModule | undefined;
let re2: typeof Re2Module | undefined;

export function celLib(): typeof CelModule {
  return (cel ??= load('@bufbuild/cel') as typeof CelModule);
}

export function celExtLib(): typeof CelExtModule {
  return (celExt ??= load('@bufbuild/cel/ext') as typeof CelExtModule);
}

export function re2Lib(): typeof Re2Module {
  return (re2 ??= load('@bufbuild/re2') as typeof Re2Module);
}

export function isCelError(v: unknown): v is CelModule.CelError {
  return celLib().isCelError(v);
}
