import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../apimachinery/clock.js';
import { dealHand, PriorityLevelQueues, SeatPool, type Admission, type LevelObserver, type QueuedRequest } from './queueset.js';

const quiet: LevelObserver = { waiting() {}, executing() {}, rejected() {}, dispatched() {} };
const never = new AbortController().signal;

function request(flow: string, clock: FakeClock): QueuedRequest {
  return { flowSchema: 'fs', distinguisher: flow, arrived: clock.now(), digest: { user: { username: flow, groups: [] }, info: { isResourceRequest: false, path: '/', verb: 'get', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' } } };
}

function level(pool: SeatPool, clock: FakeClock, nominal: number, opts: { lendable?: number; max?: number; queues?: number; handSize?: number; queueLengthLimit?: number; reject?: boolean; name?: string } = {}) {
  const l = new PriorityLevelQueues(
    opts.name ?? 'pl',
    { nominal, lendable: opts.lendable ?? 0, max: opts.max ?? nominal },
    opts.reject ? undefined : { queues: opts.queues ?? 8, handSize: opts.handSize ?? 2, queueLengthLimit: opts.queueLengthLimit ?? 50 },
    pool,
    clock,
    15_000,
    quiet,
  );
  pool.add(l);
  return l;
}

const executes = (a: Admission): (() => void) => {
  assert.ok('execute' in a, `expected execute, got ${JSON.stringify(a)}`);
  return a.execute;
};
const tick = () => new Promise((r) => setImmediate(r));

describe('shuffle sharding', () => {
  it('deals distinct cards, the same for the same hash', () => {
    for (const h of [0n, 1n, 123456789n, 2n ** 64n - 1n]) {
      const hand = dealHand(h, 128, 6);
      assert.equal(new Set(hand).size, 6);
      assert.ok(hand.every((c) => c >= 0 && c < 128));
      assert.deepEqual(dealHand(h, 128, 6), hand);
    }
    assert.deepEqual(dealHand(5n, 1, 1), [0]);
  });
});

describe('a priority level', () => {
  it('Reject: executes up to its seats, then refuses with concurrency-limit', async () => {
    const clock = new FakeClock();
    const l = level(new SeatPool(), clock, 2, { reject: true });
    const a = executes(await l.admit(request('u', clock), never));
    executes(await l.admit(request('u', clock), never));
    assert.deepEqual(await l.admit(request('u', clock), never), { reject: 'concurrency-limit' });
    a();
    a(); // a second release gives nothing back
    executes(await l.admit(request('u', clock), never));
    assert.deepEqual(await l.admit(request('u', clock), never), { reject: 'concurrency-limit' });
    assert.equal(l.counters.rejected, 2);
  });

  it('Queue: waits, times out at the wait limit, refuses a full queue, and a cancelled wait leaves', async () => {
    const clock = new FakeClock();
    const l = level(new SeatPool(), clock, 1, { queues: 1, handSize: 1, queueLengthLimit: 2 });
    const first = executes(await l.admit(request('u', clock), never));
    const waiting1 = l.admit(request('u', clock), never);
    const cancel = new AbortController();
    const waiting2 = l.admit(request('u', clock), cancel.signal);
    assert.deepEqual(await l.admit(request('u', clock), never), { reject: 'queue-full' });
    assert.equal(l.waiting, 2);
    cancel.abort();
    assert.deepEqual(await waiting2, { reject: 'cancelled' });
    clock.step(14_999);
    await tick();
    assert.equal(l.waiting, 1);
    clock.step(1);
    assert.deepEqual(await waiting1, { reject: 'time-out' });
    assert.equal(l.waiting, 0);
    first();
    assert.deepEqual([l.counters.timedOut, l.counters.cancelled, l.counters.rejected], [1, 1, 3]);
  });

  it('hands a freed seat to the next request, in queue order', async () => {
    const clock = new FakeClock();
    const l = level(new SeatPool(), clock, 1, { queues: 1, handSize: 1 });
    const first = executes(await l.admit(request('u', clock), never));
    const second = l.admit(request('u', clock), never);
    first();
    executes(await second);
    assert.equal(l.executingSeats, 1);
  });

  it('is fair between flows: a flood of one flow does not starve another', async () => {
    const clock = new FakeClock();
    const l = level(new SeatPool(), clock, 1, { queues: 64, handSize: 1, queueLengthLimit: 100 });
    const order: string[] = [];
    const running = executes(await l.admit(request('flood', clock), never));
    const all: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) all.push(Promise.resolve(l.admit(request('flood', clock), never)).then((a) => (order.push('flood'), executes(a)())));
    // Separate queues for the two flows (hash-dependent; the test's flows land apart).
    all.push(Promise.resolve(l.admit(request('victim', clock), never)).then((a) => (order.push('victim'), executes(a)())));
    running();
    await Promise.all(all);
    assert.ok(order.indexOf('victim') <= 1, `the victim waited behind ${order.indexOf('victim')} flood requests`);
  });

  it('borrows lendable seats of others, and lenders take their seats back first', async () => {
    const clock = new FakeClock();
    const pool = new SeatPool();
    const lender = level(pool, clock, 4, { lendable: 2, max: 4, reject: true, name: 'lender' });
    const borrower = level(pool, clock, 1, { lendable: 0, max: 10, queues: 1, handSize: 1, name: 'borrower' });
    const held = [];
    for (let i = 0; i < 3; i++) held.push(executes(await borrower.admit(request('b', clock), never)));
    // The borrower holds its own seat and the lender's two lendable seats; the next one waits.
    const fourth = borrower.admit(request('b', clock), never);
    await tick();
    assert.equal(borrower.waiting, 1);
    // The lender still has its two unlendable seats, but not the lent ones.
    executes(await lender.admit(request('l', clock), never));
    executes(await lender.admit(request('l', clock), never));
    assert.deepEqual(await lender.admit(request('l', clock), never), { reject: 'concurrency-limit' });
    held[0]!();
    executes(await fourth);
  });
});
