// Recording Events about objects (client-go's events recorder, events.<domain>/v1). The
// recorder is fire-and-forget: a controller's work never waits for, or fails because of,
// an Event.
import type { KubeObject } from '../apimachinery/types.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /**
   * Records that `action` happened to `regarding` (and `related`, when set) for `reason`.
   * Repeats of the same event within Kubernetes' series window become a series.
   */
  eventf(regarding: KubeObject, related: KubeObject | undefined, type: EventType, reason: string, action: string, note: string): void;
}

export interface RecordedEvent {
  regarding: KubeObject;
  related?: KubeObject;
  type: EventType;
  reason: string;
  action: string;
  note: string;
}

/** Keeps events in memory, for unit tests of controllers (client-go's FakeRecorder). */
export class FakeEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  eventf(regarding: KubeObject, related: KubeObject | undefined, type: EventType, reason: string, action: string, note: string): void {
    this.events.push({ regarding, ...(related ? { related } : {}), type, reason, action, note });
  }
}
