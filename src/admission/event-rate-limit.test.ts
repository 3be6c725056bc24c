import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { FakeClock } from '../apimachinery/clock.js';
import { ApiError } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/types.js';
import { TokenBucket } from '../apimachinery/token-bucket.js';
import { EventRateLimit, LruCache, parseEventRateLimitConfig, type EventLimit } from './event-rate-limit.js';
import type { AdmissionAttributes, AdmissionOperation } from './types.js';

const API_VERSION = 'eventratelimit.admission.orch.io/v1alpha1';

function eventAttrs(opts: { namespace?: string; user?: string; object?: KubeObject; op?: AdmissionOperation; dryRun?: boolean; kind?: string; group?: string } = {}): AdmissionAttributes {
  const g = opts.group ?? '';
  return {
    operation: opts.op ?? 'CREATE',
    object: opts.object ?? { metadata: { name: 'e' } },
    kind: { group: g, version: 'v1', kind: opts.kind ?? 'Event' },
    resource: { group: g, version: 'v1', resource: 'events' },
    subresource: '',
    namespace: opts.namespace ?? 'default',
    name: 'e',
    user: { username: opts.user ?? 'alice', groups: [] },
    dryRun: opts.dryRun ?? false,
    warnings: [],
  };
}

async function outcome(p: EventRateLimit, a: AdmissionAttributes): Promise<string> {
  try {
    await p.validate(a);
    return 'ok';
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    assert.equal(e.code, 429);
    assert.equal(e.reason, 'TooManyRequests');
    return e.message;
  }
}

test('the token bucket starts full and refills at qps up to burst', () => {
  const clock = new FakeClock();
  const b = new TokenBucket(1, 2, clock);
  assert.deepEqual([b.tryAccept(), b.tryAccept(), b.tryAccept()], [true, true, false]);
  clock.step(999);
  assert.equal(b.tryAccept(), false);
  clock.step(1);
  assert.deepEqual([b.tryAccept(), b.tryAccept()], [true, false]);
  clock.step(60_000);
  assert.deepEqual([b.tryAccept(), b.tryAccept(), b.tryAccept()], [true, true, false]);
});

test('the LRU forgets the least recently used key first', () => {
  const lru = new LruCache<number>(2);
  let made = 0;
  const get = (k: string) => lru.getOrCreate(k, () => ++made);
  assert.equal(get('a'), 1);
  assert.equal(get('b'), 2);
  assert.equal(get('a'), 1); // a is now the most recent
  assert.equal(get('c'), 3); // evicts b
  assert.equal(lru.size, 2);
  assert.equal(get('a'), 1);
  assert.equal(get('b'), 4);
  // Keys are plain strings in a Map: a hostile key is an ordinary key.
  assert.equal(get('__proto__'), 5);
  assert.equal(get('__proto__'), 5);
});

const limit = (type: EventLimit['type'], qps: number, burst: number, cacheSize = 0): EventLimit => ({ type, qps, burst, cacheSize });

test('each limit type keys its buckets as Kubernetes does; the 429 names type and key', async () => {
  const involved = (name: string) => ({
    metadata: { name: 'e' },
    source: { component: 'kubelet', host: 'n1' },
    involvedObject: { kind: 'Pod', namespace: 'default', name, uid: 'u1', apiVersion: 'v1' },
  });
  const cases: { name: string; limit: EventLimit; first: AdmissionAttributes; same: AdmissionAttributes; other: AdmissionAttributes; message: string }[] = [
    { name: 'Server', limit: limit('Server', 1, 1), first: eventAttrs(), same: eventAttrs({ namespace: 'x', user: 'bob' }), other: eventAttrs(), message: 'Too many requests: limit reached on type Server for key ' },
    { name: 'Namespace', limit: limit('Namespace', 1, 1), first: eventAttrs(), same: eventAttrs({ user: 'bob' }), other: eventAttrs({ namespace: 'other' }), message: 'Too many requests: limit reached on type Namespace for key default' },
    { name: 'User', limit: limit('User', 1, 1), first: eventAttrs(), same: eventAttrs({ namespace: 'x' }), other: eventAttrs({ user: 'bob' }), message: 'Too many requests: limit reached on type User for key alice' },
    {
      name: 'SourceAndObject',
      limit: limit('SourceAndObject', 1, 1),
      first: eventAttrs({ object: involved('p1') }),
      same: eventAttrs({ object: involved('p1'), user: 'bob' }),
      other: eventAttrs({ object: involved('p2') }),
      message: 'Too many requests: limit reached on type SourceAndObject for key kubeletn1Poddefaultp1u1v1',
    },
  ];
  for (const c of cases) {
    const p = new EventRateLimit([c.limit], new FakeClock());
    assert.equal(await outcome(p, c.first), 'ok', c.name);
    assert.equal(await outcome(p, c.same), c.message, c.name);
    if (c.name !== 'Server') assert.equal(await outcome(p, c.other), 'ok', c.name);
  }
});

test('qps 1 burst 2: the third event in a second is refused, one more a second later', async () => {
  const clock = new FakeClock();
  const p = new EventRateLimit([limit('Namespace', 1, 2)], clock);
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await outcome(p, eventAttrs()));
  assert.deepEqual(results.slice(0, 2), ['ok', 'ok']);
  assert.match(results[2]!, /limit reached on type Namespace for key default/);
  clock.step(1000);
  assert.equal(await outcome(p, eventAttrs()), 'ok');
  assert.notEqual(await outcome(p, eventAttrs()), 'ok');
});

test('only core Event creates and updates count; dry runs and other kinds pass freely', async () => {
  const p = new EventRateLimit([limit('Server', 1, 1)], new FakeClock());
  assert.equal(p.handles('DELETE'), false);
  assert.equal(p.handles('UPDATE'), true);
  for (let i = 0; i < 5; i++) {
    assert.equal(await outcome(p, eventAttrs({ kind: 'ConfigMap' })), 'ok');
    assert.equal(await outcome(p, eventAttrs({ group: 'events.orch.io' })), 'ok');
    assert.equal(await outcome(p, eventAttrs({ dryRun: true })), 'ok');
  }
  assert.equal(await outcome(p, eventAttrs({ op: 'UPDATE' })), 'ok');
  assert.notEqual(await outcome(p, eventAttrs()), 'ok');
});

test('every limit takes its token; several refusals are listed together', async () => {
  const p = new EventRateLimit([limit('Server', 1, 1), limit('Namespace', 1, 1)], new FakeClock());
  assert.equal(await outcome(p, eventAttrs()), 'ok');
  assert.equal(
    await outcome(p, eventAttrs()),
    'Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key default]',
  );
});

test('a keyed limit keeps at most cacheSize buckets; a forgotten key starts with a full bucket', async () => {
  const p = new EventRateLimit([limit('User', 1, 1, 2)], new FakeClock());
  assert.equal(await outcome(p, eventAttrs({ user: 'a' })), 'ok');
  assert.equal(await outcome(p, eventAttrs({ user: 'b' })), 'ok');
  assert.equal(await outcome(p, eventAttrs({ user: 'c' })), 'ok'); // evicts a
  assert.equal(await outcome(p, eventAttrs({ user: 'a' })), 'ok');
  assert.notEqual(await outcome(p, eventAttrs({ user: 'c' })), 'ok');
});

test('configuration: the versioned file is read; bad ones are refused with Kubernetes field errors', () => {
  const good = parse(`
apiVersion: ${API_VERSION}
kind: Configuration
limits:
- type: Namespace
  qps: 50
  burst: 100
  cacheSize: 2000
- type: User
  qps: 10
  burst: 50
- type: Server
  qps: 5
  burst: 10
`) as Record<string, unknown>;
  assert.deepEqual(parseEventRateLimitConfig(good), [
    { type: 'Namespace', qps: 50, burst: 100, cacheSize: 2000 },
    { type: 'User', qps: 10, burst: 50, cacheSize: 0 },
    { type: 'Server', qps: 5, burst: 10, cacheSize: 0 },
  ]);
  const head = { apiVersion: API_VERSION, kind: 'Configuration' };
  const prefix = 'couldn\'t init admission plugin "EventRateLimit" from --admission-control-config-file: ';
  const bad: [string, Record<string, unknown>, string][] = [
    ['no configuration', {}, 'limits: Invalid value: null: must not be empty'],
    ['empty limits', { ...head, limits: [] }, 'limits: Invalid value: []: must not be empty'],
    ['unknown kind', { apiVersion: API_VERSION, kind: 'Policy', limits: [] }, `no kind "Policy" is registered for version "${API_VERSION}"`],
    ['other group', { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration' }, 'no kind "Configuration" is registered for version "eventratelimit.admission.k8s.io/v1alpha1"'],
    ['unknown type', { ...head, limits: [{ type: 'Cluster', qps: 1, burst: 1 }] }, 'limits[0].type: Unsupported value: "Cluster": supported values: "Namespace", "Server", "SourceAndObject", "User"'],
    ['negative qps', { ...head, limits: [{ type: 'Server', qps: -1, burst: 1 }] }, 'limits[0].qps: Invalid value: -1: must be positive'],
    ['zero burst', { ...head, limits: [{ type: 'Server', qps: 1 }] }, 'limits[0].burst: Invalid value: 0: must be positive'],
    ['negative cache', { ...head, limits: [{ type: 'User', qps: 1, burst: 1, cacheSize: -5 }] }, 'limits[0].cacheSize: Invalid value: -5: must not be negative'],
    ['fractional qps', { ...head, limits: [{ type: 'User', qps: 0.5, burst: 1 }] }, '[limits[0].qps: Invalid value: 0.5: must be a 32-bit integer, limits[0].qps: Invalid value: 0: must be positive]'],
    ['huge burst', { ...head, limits: [{ type: 'User', qps: 1, burst: 2 ** 40 }] }, '[limits[0].burst: Invalid value: 1099511627776: must be a 32-bit integer, limits[0].burst: Invalid value: 0: must be positive]'],
    ['string qps', { ...head, limits: [{ type: 'User', qps: '5', burst: 1 }] }, '[limits[0].qps: Invalid value: "5": must be a 32-bit integer, limits[0].qps: Invalid value: 0: must be positive]'],
    ['no kind', { limits: [{ type: 'Server', qps: 1, burst: 1 }] }, `Object 'Kind' is missing in configuration (want kind Configuration in ${API_VERSION})`],
    ['limits not a list', { ...head, limits: { type: 'User' } }, 'limits: must be a list'],
    ['entry not a map', { ...head, limits: ['Server'] }, 'limits[0]: Invalid value: "Server": must be an object'],
  ];
  for (const [name, config, message] of bad) assert.throws(() => parseEventRateLimitConfig(config), { message: prefix + message }, name);
});

test('configuration: __proto__ keys are ordinary keys and change nothing', () => {
  const hostile = JSON.parse(
    `{"apiVersion":"${API_VERSION}","kind":"Configuration","__proto__":{"limits":[{"type":"Server","qps":1,"burst":1}]},"limits":[{"type":"User","qps":2,"burst":3,"__proto__":{"cacheSize":-1}}]}`,
  ) as Record<string, unknown>;
  assert.deepEqual(parseEventRateLimitConfig(hostile), [{ type: 'User', qps: 2, burst: 3, cacheSize: 0 }]);
  assert.equal(({} as Record<string, unknown>).limits, undefined);
  const onlyProto = JSON.parse(`{"apiVersion":"${API_VERSION}","kind":"Configuration","__proto__":{"limits":[{"type":"Server","qps":1,"burst":1}]}}`) as Record<string, unknown>;
  assert.throws(() => parseEventRateLimitConfig(onlyProto), /limits: Invalid value: null: must not be empty/);
});
