#!/usr/bin/env node
// orch-apiserver: parses the flags, starts the server, prints the one start line, and
// stops cleanly on SIGTERM or SIGINT (exit code 0).
import { relative } from 'node:path';
import { closeEarlyStorage, generateServiceAccountKeyEarly, openStorageEarly } from './early-start.js';

function displayPath(p: string): string {
  const rel = relative(process.cwd(), p);
  return rel && !rel.startsWith('..') ? rel : p;
}

async function main(argv: string[]): Promise<number> {
  // The store opens and is read on its worker while the flags' table and the server load.
  let early = openStorageEarly(argv);
  const serviceAccountKey = early ? undefined : generateServiceAccountKeyEarly(argv);
  const [{ FlagError, parseFlags, usage }, { allFlagDefinitions }] = await Promise.all([import('../apimachinery/flags.js'), import('./flags.js')]);
  let flags;
  try {
    flags = parseFlags(argv, allFlagDefinitions);
  } catch (e) {
    await closeEarlyStorage(early);
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const name = 'orch-apiserver';
  if (flags.boolean('help')) {
    process.stdout.write(`Usage: orch-apiserver [flags]\n\nFlags:\n${usage(allFlagDefinitions)}\n`);
    return 0;
  }
  if (flags.boolean('version')) {
    const [{ PRODUCT_VERSION }, { versionInfo }] = await Promise.all([import('./server.js'), import('../server/version.js')]);
    process.stdout.write(`${versionInfo(PRODUCT_VERSION).gitVersion}\n`);
    return 0;
  }
  const { startServer } = await import('./server.js');
  const log = (line: string): void => {
    process.stderr.write(`${name}: ${line}\n`);
  };
  // A failure in background work (a controller, a cache) is logged; it must not take the
  // whole server down with every client's requests.
  process.on('unhandledRejection', (reason) => {
    log(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`);
  });
  // Signals are taken from the start: one that arrives while starting stops the server as
  // soon as it is up, so that no start-up is left half done.
  let signalled = false;
  let forced: (code: number) => void = () => {};
  const signal = new Promise<void>((resolveSignal) => {
    const onSignal = (): void => {
      if (signalled) {
        // A second signal forces the exit without waiting for the drain.
        forced(1);
        return;
      }
      signalled = true;
      resolveSignal();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  let running;
  try {
    running = await startServer(flags, { log, ...(early ? { early } : {}), ...(serviceAccountKey ? { serviceAccountKey } : {}) });
  } catch (e) {
    process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
    await closeEarlyStorage(early);
    return 1;
  }
  // The server owns the store now; the whole read the caches filled from is not kept here.
  early = undefined;
  const kubeconfig = displayPath(running.kubeconfigPath);
  process.stdout.write(`Serving on ${running.url}; admin kubeconfig: ${kubeconfig}; try: kubectl --kubeconfig ${kubeconfig} get namespaces\n`);
  if (running.console) process.stdout.write(`console: ${running.console.url}\n`);
  running.started.catch(() => {});

  const stopped = signal.then(async () => {
    try {
      await running.stop();
      return 0;
    } catch (err) {
      log(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
      return 1;
    }
  });
  return Promise.race([stopped, new Promise<number>((r) => (forced = r))]);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
