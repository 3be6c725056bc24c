#!/usr/bin/env node
// orch-scheduler: the scheduler (kube-scheduler's default profile) out of process against an API server
// (`--kubeconfig`); stops cleanly, releasing its Lease, on SIGTERM or SIGINT, and exits 1 when
// it loses the Lease (kube-scheduler's "leaderelection lost").
import { FlagError, parseFlags, usage } from '../apimachinery/flags.js';
import { versionInfo } from '../server/version.js';
import { schedulerFlagDefinitions, startScheduler } from './scheduler-app.js';
import { PRODUCT_VERSION } from './server.js';

const NAME = 'orch-scheduler';

async function main(argv: string[]): Promise<number> {
  let flags;
  try {
    flags = parseFlags(argv, schedulerFlagDefinitions);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (flags.boolean('help')) {
    process.stdout.write(`Usage: ${NAME} --kubeconfig <file> [flags]\n\nFlags:\n${usage(schedulerFlagDefinitions)}\n`);
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
  let leadershipLost: () => void = () => {};
  const lost = new Promise<void>((resolve) => (leadershipLost = resolve));
  // The scheduler's timers do not hold the process (a candidate waiting for the Lease has
  // nothing else pending): this one does, until a signal or the loss of the Lease.
  const alive = setInterval(() => {}, 2 ** 30);
  try {
    let running;
    try {
      running = await startScheduler(flags, { log, onLeadershipLost: () => leadershipLost() });
    } catch (e) {
      process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
    log(`started${flags.boolean('leader-elect') === false ? '' : ', campaigning on the Lease'}`);
    const why = await Promise.race([signal.then(() => 'signal' as const), lost.then(() => 'lost' as const)]);
    await running.stop();
    if (why === 'lost') {
      log('leaderelection lost');
      return 1;
    }
    return 0;
  } finally {
    clearInterval(alive);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
