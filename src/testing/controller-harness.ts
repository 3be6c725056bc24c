// One controller over the real registry in memory, for its unit tests: the resources it
// needs served, an admin loopback client, shared informers synced, the `default` namespace,
// a FakeClock, and a wait for the controller to go quiet.
import { builtinResourceDefinitions } from '../apis/definitions.js';
import { FakeClock } from '../apimachinery/clock.js';
import type { ControllerDescriptor, ControllerOptions, RunningController } from '../controllers/types.js';
import type { ResourceDefinition } from '../rest/index.js';
import { LoopbackClient } from '../server/loopback.js';
import { testControllerContext, type TestControllerContext } from './controllers.js';
import { memoryTable } from './memory-table.js';
import { eventually } from './wait.js';

export interface ControllerHarness {
  client: LoopbackClient;
  clock: FakeClock;
  ctx: TestControllerContext;
  running: RunningController;
  /** Resolves once the controller has been idle for three polls in a row. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startControllerHarness(
  descriptor: ControllerDescriptor,
  serves: (definition: ResourceDefinition) => boolean,
  options: Partial<ControllerOptions> = {},
): Promise<ControllerHarness> {
  const clock = new FakeClock(Date.UTC(2024, 0, 1));
  const mt = memoryTable(builtinResourceDefinitions({ runtimeConfig: '' }).filter(serves), { now: () => clock.now() });
  const client = new LoopbackClient(mt.table, { username: 'admin', groups: ['system:masters'] });
  const ctx = testControllerContext(client, { clock });
  Object.assign(ctx.options, options);
  const running = await descriptor.start(ctx);
  ctx.informers.start();
  await ctx.informers.waitForSync();
  await client.create({ group: '', version: 'v1', resource: 'namespaces' }, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return {
    client,
    clock,
    ctx,
    running,
    async settle() {
      let quiet = 0;
      await eventually(async () => {
        await new Promise((r) => setTimeout(r, 10));
        quiet = running.idle?.() ? quiet + 1 : 0;
        return quiet >= 3 ? true : undefined;
      }, 'the controller to settle');
    },
    async stop() {
      await running.stop();
      await ctx.informers.stop();
      await mt.close();
    },
  };
}
