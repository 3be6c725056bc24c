// The process around an out-of-process component (orch-controller-manager, orch-scheduler):
// flags, --help and --version, a clean stop releasing its Lease on SIGTERM or SIGINT, and
// exit 1 when it loses the Lease (kube's "leaderelection lost").
import { FlagError, parseFlags, usage, type FlagDefinition, type ParsedFlags } from '../apimachinery/flags.js';
import { versionInfo } from '../server/version.js';
import { PRODUCT_VERSION } from './server.js';

export interface Component<R extends { stop(): Promise<void> }> {
  /** The program's name, the prefix of its log lines. */
  name: string;
  flags: FlagDefinition[];
  start(flags: ParsedFlags, opts: { log: (line: string) => void; onLeadershipLost: () => void }): Promise<R>;
  /** The line logged once it has started. */
  started(flags: ParsedFlags, running: R): string;
}

export async function runComponent<R extends { stop(): Promise<void> }>(component: Component<R>, argv: string[]): Promise<number> {
  const { name } = component;
  let flags;
  try {
    flags = parseFlags(argv, component.flags);
  } catch (e) {
    if (e instanceof FlagError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (flags.boolean('help')) {
    process.stdout.write(`Usage: ${name} --kubeconfig <file> [flags]\n\nFlags:\n${usage(component.flags)}\n`);
    return 0;
  }
  if (flags.boolean('version')) {
    process.stdout.write(`${versionInfo(PRODUCT_VERSION).gitVersion}\n`);
    return 0;
  }
  const log = (line: string): void => {
    process.stderr.write(`${name}: ${line}\n`);
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
  // The component's timers do not hold the process (a candidate waiting for the Lease has
  // nothing else pending): this one does, until a signal or the loss of the Lease.
  const alive = setInterval(() => {}, 2 ** 30);
  try {
    let running;
    try {
      running = await component.start(flags, { log, onLeadershipLost: () => leadershipLost() });
    } catch (e) {
      process.stderr.write(`Error: ${e instanceof Error ? e.message : String(e)}\n`);
      return 1;
    }
    log(component.started(flags, running));
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

/** Runs the component as the process's program and exits with its code. */
export function componentMain<R extends { stop(): Promise<void> }>(component: Component<R>): void {
  runComponent(component, process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`Error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
