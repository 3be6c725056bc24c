#!/usr/bin/env node
// orch-controller-manager: the controllers out of process against an API server
// (`--kubeconfig`); stops cleanly, releasing its Lease, on SIGTERM or SIGINT.
import { FlagError, parseFlags, usage } from '../apimachinery/flags.js';
import { versionInfo } from '../server/version.js';
import { controllerManagerFlagDefinitions, startControllerManager } from './controller-manager-app.js';
import { PRODUCT_VERSION } from './server.js';

const NAME = 'orch-controller-manager';

async function main(argv: string[]): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv, controllerManagerFlagDefinitions);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (flags.boolean('help')) {
    process.stdout.write(`Usage: ${NAME} --kubeconfig <file> [flags]\n\nFlags:\n${usage(controllerManagerFlagDefinitions)}\n`);
    return 0;
  }
  if (flags.boolean('version')) {
    process.stdout.write(`${versionInfo(PRODUCT_VERSION).gitVersion}\n`);
    return 0;
  }
  const log = (line: string): void => {
    process.stderr.write(`${NAME}: ${line}\n`);
  };
  process.on('unhandledRejection', (reason) => {
    log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  let signalled: () => void = () => {};
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  process.on('SIGTERM', () => signalled());
  process.on('SIGINT', () => signalled());
  let running;
  try {
    running = await startControllerManager(flags, { log });
  } catch (e) {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  log(`controllers: ${running.manager.selectedControllers().join(', ') || '(none)'}`);
  await signal;
  await running.stop();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
