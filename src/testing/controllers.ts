// A ControllerContext for tests of one controller: a fake clock and event recorder, no
// discovery, and the errors the controller reports, kept for assertions.
import { FakeClock } from '../apimachinery/clock.js';
import { FakeEventRecorder } from '../client/events.js';
import { SharedInformerFactory } from '../client/informer-factory.js';
import type { ApiClient } from '../client/types.js';
import { DEFAULT_CONTROLLER_OPTIONS, type ControllerContext } from '../controllers/types.js';

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
