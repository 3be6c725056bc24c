import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../apimachinery/clock.js';
import { BufferedBackend, EventSnapshot, IgnoreErrorsBackend, type AuditBackend, type BatchConfig } from './backend.js';
import { AuditMetrics } from './metrics.js';
import type { AuditEvent } from './types.js';

const ev = (id: string): EventSnapshot =>
  new EventSnapshot({ level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: { username: 'u' }, sourceIPs: [], userAgent: '', requestReceivedTimestamp: 0, stageTimestamp: 0 } as AuditEvent);

class Recorder implements AuditBackend {
  readonly name = 'rec';
  batches: string[][] = [];
  gate: Promise<void> | undefined;
  async processEvents(events: EventSnapshot[]): Promise<boolean> {
    if (this.gate) await this.gate;
    this.batches.push(events.map((e) => e.event.auditID));
    return true;
  }
  async shutdown(): Promise<void> {}
}

const config = (o: Partial<BatchConfig> = {}): BatchConfig => ({ bufferSize: 100, maxBatchSize: 3, maxBatchWaitMs: 1000, throttleEnable: false, throttleQPS: 0, throttleBurst: 0, asyncDelegate: true, ...o });
const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('buffered audit backend', () => {
  it('sends full batches at once and a partial batch after maxBatchWait', async () => {
    const clock = new FakeClock();
    const rec = new Recorder();
    const b = new BufferedBackend(rec, config(), new AuditMetrics(), clock);
    for (const id of ['1', '2', '3', '4']) b.processEvents([ev(id)]);
    await turn();
    assert.deepEqual(rec.batches, [['1', '2', '3']]);
    clock.step(999);
    await turn();
    assert.equal(rec.batches.length, 1);
    clock.step(1);
    await turn();
    assert.deepEqual(rec.batches, [['1', '2', '3'], ['4']]);
  });

  it('drops what does not fit the buffer, counts it, and never fails the caller', async () => {
    const clock = new FakeClock();
    const rec = new Recorder();
    let open!: () => void;
    rec.gate = new Promise((r) => (open = r));
    const metrics = new AuditMetrics();
    const b = new BufferedBackend(rec, config({ bufferSize: 2, maxBatchSize: 10 }), metrics, clock);
    assert.equal(b.processEvents([ev('1'), ev('2'), ev('3'), ev('4')]), true);
    assert.equal(await metrics.value('error', 'buffered'), 2);
    open();
    await b.shutdown();
    assert.deepEqual(rec.batches, [['1', '2']]);
  });

  it('throttles batches to qps with burst', async () => {
    const clock = new FakeClock();
    const rec = new Recorder();
    const b = new BufferedBackend(rec, config({ maxBatchSize: 1, throttleEnable: true, throttleQPS: 1, throttleBurst: 2 }), new AuditMetrics(), clock);
    for (const id of ['1', '2', '3', '4']) b.processEvents([ev(id)]);
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(rec.batches.length, 2);
    clock.step(1000);
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(rec.batches.length, 3);
    clock.step(1000);
    for (let i = 0; i < 5; i++) await turn();
    assert.equal(rec.batches.length, 4);
  });

  it('delivers what is buffered on shutdown', async () => {
    const rec = new Recorder();
    const b = new BufferedBackend(rec, config({ maxBatchSize: 10, maxBatchWaitMs: 60_000 }), new AuditMetrics(), new FakeClock());
    b.processEvents([ev('1'), ev('2')]);
    await b.shutdown();
    assert.deepEqual(rec.batches, [['1', '2']]);
    b.processEvents([ev('3')]);
  });

  it('blocking mode reports success even when the backend fails', async () => {
    const failing: AuditBackend = { name: 'f', processEvents: () => false, shutdown: async () => {} };
    assert.equal(new IgnoreErrorsBackend(failing).processEvents([ev('1')]), true);
  });
});
