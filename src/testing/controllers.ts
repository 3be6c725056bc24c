// A ControllerContext for tests of one controller: a fake clock and event recorder, no
// discovery, and the errors the controller reports, kept for assertions; and the wait until
// controllers have handled every write.
import { FakeClock } from '../apimachinery/clock.js';
import { FakeEventRecorder } from '../client/events.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import type { Informer } from '../client/informer.js';
import type { ApiClient } from '../client/types.js';
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerContext } from '../controllers/types.js';
import { eventually } from './wait.js';

export interface TestControllerContext extends ControllerContext {
  /** What the controller passed to `onError`. */
  errors: unknown[];
  /** The one recorder every component's Events go to. */
  events: FakeEventRecorder;
}

/** A context over `client`; `overrides` replace any part (clock, discovery, options, ...). */
export function testControllerContext(client: ApiClient, overrides: Partial<ControllerContext> = {}): TestControllerContext {
  const errors: unknown[] = [];
  const events = new FakeEventRecorder();
  return {
    client,
    informers: new SharedInformerFactory(client),
    clock: new FakeClock(),
    eventRecorder: () => events,
    discover: async () => [],
    log: () => {},
    onResourcesChanged: () => () => {},
    options: { ...DEFAULT_CONTROLLER_OPTIONS },
    onError: (err) => {
      errors.push(err);
    },
    errors,
    events,
    ...overrides,
  };
}

/**
 * Resolves once the controllers have handled every write made before the call: each informer
 * holds exactly what the server lists (the same objects at the same resourceVersions), no write
 * happened while that was looked at, and `idle()` answered true before and after the look. A
 * "did not happen" assertion made after it is meaningful: the events that could have led to
 * it reached the controllers and were worked off. The informers must be of every namespace,
 * without selectors. Work waiting on a timer (a back-off, a wake-up on a FakeClock that was
 * not stepped) is not waited for.
 */
export async function settleControllers(client: ApiClient, informers: readonly Informer[], idle: () => boolean, timeoutMs = 10_000): Promise<void> {
  const revisionNow = async (): Promise<string | undefined> => (await client.list(informers[0]!.resource, '', { limit: 1 })).metadata.resourceVersion;
  await eventually(
    async () => {
      if (!idle()) return false;
      const revisions = new Set<string | undefined>();
      for (const informer of informers) {
        const listed = await client.list(informer.resource, '');
        revisions.add(listed.metadata.resourceVersion);
        if (!informer.hasSynced() || listed.items.length !== informer.listKeys().length) return false;
        for (const item of listed.items) {
          const held = informer.get(item.metadata?.namespace ?? '', item.metadata?.name ?? '');
          if (held?.metadata?.resourceVersion !== item.metadata?.resourceVersion) return false;
        }
      }
      if (!idle()) return false;
      revisions.add(await revisionNow());
      return revisions.size === 1;
    },
    'the controllers to handle every write',
    timeoutMs,
  );
}
