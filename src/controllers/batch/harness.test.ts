// Fixtures of the batch controllers' tests: the real registry over memory storage serving
// namespaces, pods, Jobs and CronJobs, shared informers, a FakeClock and a FakeEventRecorder.
import { builtinResourceDefinitions } from '../../apis/definitions.js';
import { FakeClock } from '../../apimachinery/clock.js';
import type { KubeObject } from '../../apimachinery/types.js';
import { FakeEventRecorder } from '../../client/events.js';
import { LoopbackClient } from '../../server/loopback.js';
import { memoryTable } from '../../testing/memory-table.js';
import type { ControllerDescriptor, RunningController } from '../types.js';
import { settleControllers, testControllerContext } from '../../testing/controllers.js';
import { CRONJOBS, JOBS, PODS } from './common.js';

export interface BatchHarness {
  client: LoopbackClient;
  clock: FakeClock;
  recorder: FakeEventRecorder;
  errors: unknown[];
  running: RunningController[];
  /** Waits until the controllers have handled every write so far (and what the clock brought due). */
  settle(): Promise<void>;
  /** Moves the clock and lets the controllers act on it. */
  step(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startBatch(...descriptors: ControllerDescriptor[]): Promise<BatchHarness> {
  const defs = builtinResourceDefinitions({ runtimeConfig: '' }).filter(
    (d) => (d.group === '' && d.version === 'v1' && ['namespaces', 'pods'].includes(d.resource)) || (d.group === 'batch' && d.version === 'v1'),
  );
  // The stores stamp creation times with the same clock the controllers read.
  const clock = new FakeClock(Date.UTC(2024, 0, 1, 0, 0, 30));
  const { table, close } = memoryTable(defs, { now: () => clock.now() });
  const client = new LoopbackClient(table, { username: 'admin', groups: ['system:masters'] });
  const ctx = testControllerContext(client, { clock });
  const { informers, errors, events: recorder } = ctx;
  const running: RunningController[] = [];
  for (const d of descriptors) running.push(await d.start(ctx));
  // Every resource the batch controllers watch, whichever of them run.
  const watched = [JOBS, CRONJOBS, PODS].map((r) => informers.informerFor(r));
  informers.start();
  await informers.waitForSync();
  const settle = (): Promise<void> => settleControllers(client, watched, () => running.every((r) => r.idle?.() ?? true));
  return {
    client,
    clock,
    recorder,
    errors,
    running,
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

export function reasons(recorder: FakeEventRecorder): string[] {
  return recorder.events.map((e) => e.reason);
}

export function statusOf<T>(o: KubeObject): T {
  return (o.status ?? {}) as T;
}
