// orch-scheduler's work, apart from the process entry point so tests can run it: the
// scheduler (kube-scheduler's default profile) out of process, over HTTPS from a kubeconfig,
// campaigning on the `kube-scheduler` Lease in the system namespace before it acts.
import type { Clock } from '../apimachinery/clock.js';
import type { FlagDefinition, ParsedFlags } from '../apimachinery/flags.js';
import type { ControllerManager } from '../controllers/index.js';
import { SCHEDULER_LEASE_NAME, schedulerDescriptor } from '../scheduler/descriptor.js';
import { startAgainstServer } from './controller-manager-app.js';
import { controllerFlagDefinitions, leaderElectionFromFlags } from './flags.js';

/** kube-scheduler's flags that apply here: the kubeconfig and leader election (its Lease is `kube-scheduler`). */
export const schedulerFlagDefinitions: FlagDefinition[] = [
  { name: 'help', type: 'boolean', default: false, usage: 'Print the flags and exit.' },
  { name: 'version', type: 'boolean', default: false, usage: 'Print the version and exit.' },
  { name: 'kubeconfig', type: 'string', usage: 'Path to kubeconfig file with authorization and master location information.' },
  {
    name: 'compat',
    type: 'string',
    usage: "Naming flavor of the server: orch or kubernetes. Unset, it is read from the server's discovery.",
  },
  ...controllerFlagDefinitions
    .filter((d) => d.name.startsWith('leader-elect'))
    .map((d) => {
      if (d.name === 'leader-elect-resource-name') return { ...d, default: SCHEDULER_LEASE_NAME };
      if (d.name === 'leader-elect') return { ...d, usage: 'Start a leader election client and gain leadership before executing the main loop. Enable this when running replicated components for high availability.' };
      return d;
    }),
];

export interface SchedulerRunOptions {
  log?: (line: string) => void;
  clock?: Clock;
  /** Told when the Lease is lost while running (the entry point exits then, as kube-scheduler does). */
  onLeadershipLost?: () => void;
}

export interface RunningScheduler {
  /** The manager running the scheduler component (its Lease, informers and events). */
  manager: ControllerManager;
  stop(): Promise<void>;
}

export async function startScheduler(flags: ParsedFlags, opts: SchedulerRunOptions = {}): Promise<RunningScheduler> {
  const leaderElection = leaderElectionFromFlags(flags, SCHEDULER_LEASE_NAME);
  return startAgainstServer(flags, { role: 'the scheduler', userAgent: 'orch-scheduler' }, opts, () => ({
    descriptors: [schedulerDescriptor()],
    controllers: ['*'],
    leaderElection,
  }));
}
