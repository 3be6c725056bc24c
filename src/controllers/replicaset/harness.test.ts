// Fixtures of the workload controllers' tests: the real registry over memory storage serving
// namespaces, pods, ReplicationControllers and apps/v1, shared informers, a FakeClock and a
// FakeEventRecorder; pods go Ready only when a test writes their status.
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { KubeObject } from '../../apimachinery/types.js';
import type { ApiClient } from '../../client/types.js';
import { FakeEventRecorder } from '../../client/events.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import type { ControllerDescriptor, RunningController } from '../types.js';
import { testControllerContext } from '../../testing/controllers.js';
import { PODS } from './controller.js';

export interface WorkloadHarness {
  client: LoopbackClient;
  clock: FakeClock;
  recorder: FakeEventRecorder;
  errors: unknown[];
  settle(): Promise<void>;
  step(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWorkload(...descriptors: ControllerDescriptor[]): Promise<WorkloadHarness> {
  return startWorkloadWith({}, ...descriptors);
}

export interface WorkloadOptions {
  /** Replaces the controllers' client (to inject failures). */
  wrapClient?: (client: ApiClient) => ApiClient;
}

export async function startWorkloadWith(opts: WorkloadOptions, ...descriptors: ControllerDescriptor[]): Promise<WorkloadHarness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
    (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'replicationcontrollers'].includes(d.resource)) || (d.group === 'apps' && d.version === 'v1'),
  );
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 30));
  const { table, close } = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  const ctx = testControllerContext(opts.wrapClient ? opts.wrapClient(client) : client, { clock });
  const { informers, errors, events: recorder } = ctx;
  const running: RunningController[] = [];
  for (const d of descriptors) running.push(await d.start(ctx));
  informers.start();
  await informers.waitForSync();
  const settle = async (): Promise<void> => {
    let quiet = 0;
    await eventually(async () => {
      await new Promise((r) => setTimeout(r, 10));
      quiet = running.every((r) => r.idle?.() ?? true) ? quiet + 1 : 0;
      return quiet >= 3 ? true : undefined;
    }, 'the controllers to settle');
  };
  return {
    client,
    clock,
    recorder,
    errors,
    settle,
    async step(ms) {
      clock.step(ms);
      await settle();
    },
    async close() {
      for (const r of running) await r.stop();
      await informers.stop();
      await close();
    },
  };
}

/** Writes the status a node agent would: Running and Ready since `at`. */
export async function makeReady(client: LoopbackClient, pod: KubeObject, at: Date): Promise<void> {
  const t = rfc3339(at);
  await client.patch(
    PODS,
    pod.metadata?.namespace ?? 'default',
    pod.metadata?.name ?? '',
    { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: t }] } },
    'status',
  );
}

export async function podsWith(client: LoopbackClient, pred: (p: KubeObject) => boolean = () => true): Promise<KubeObject[]> {
  return (await client.list(PODS, 'default')).items.filter(pred);
}
