// Fixtures of the StatefulSet and DaemonSet tests: the real registry over memory storage serving
// namespaces, pods, claims, nodes and apps/v1, shared informers, a FakeClock; pods go Ready only
// when a test writes their status.
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import { rfc3339 } from '../../apimachinery/time.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { FakeEventRecorder } from '../../client/events.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import { eventually } from '../../testing/wait.js';
import { testControllerContext } from '../../testing/controllers.js';
import type { ControllerDescriptor, RunningController } from '../types.js';

export const PODS = { group: '', version: 'v1', resource: 'pods' };

export interface Harness {
  client: LoopbackClient;
  clock: FakeClock;
  recorder: FakeEventRecorder;
  errors: unknown[];
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function start(descriptor: ControllerDescriptor): Promise<Harness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
    (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'pods', 'persistentvolumeclaims', 'nodes'].includes(d.resource)) || (d.group === 'apps' && d.version === 'v1'),
  );
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 30));
  const { table, close } = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  const ctx = testControllerContext(client, { clock });
  const running: RunningController = await descriptor.start(ctx);
  ctx.informers.start();
  await ctx.informers.waitForSync();
  const settle = async (): Promise<void> => {
    let quiet = 0;
    await eventually(async () => {
      await new Promise((r) => setTimeout(r, 10));
      quiet = (running.idle?.() ?? true) ? quiet + 1 : 0;
      return quiet >= 3 ? true : undefined;
    }, 'the controller to settle');
  };
  return {
    client,
    clock,
    recorder: ctx.events,
    errors: ctx.errors,
    settle,
    async close() {
      await running.stop();
      await ctx.informers.stop();
      await close();
    },
  };
}

/** Writes what a node agent would: the phase, and Ready since `at` unless `ready` is false. */
export async function setPodStatus(client: LoopbackClient, name: string, at: Date, phase = 'Running', ready = true): Promise<void> {
  const conditions = ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: rfc3339(at) }] : [];
  await client.patch(PODS, 'default', name, { status: { phase, conditions } }, 'status');
}

export async function podNames(client: LoopbackClient): Promise<string[]> {
  return (await client.list(PODS, 'default')).items.filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.name ?? '').sort();
}

export async function pod(client: LoopbackClient, name: string): Promise<KubeObject> {
  return client.get(PODS, 'default', name);
}
