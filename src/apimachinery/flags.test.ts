import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagError, parseDuration, parseFlags, type FlagDefinition } from './flags.js';

const defs: FlagDefinition[] = [
  { name: 'secure-port', type: 'int', default: 6443, usage: 'port' },
  { name: 'anonymous-auth', type: 'boolean', default: true, usage: 'anon' },
  { name: 'authorization-mode', type: 'stringList', default: ['Node', 'RBAC'], usage: 'modes' },
  { name: 'shutdown-delay-duration', type: 'duration', usage: 'delay' },
  { name: 'data-dir', type: 'string', usage: 'dir' },
];

test('defaults apply when flags are absent', () => {
  const f = parseFlags([], defs);
  assert.equal(f.number('secure-port'), 6443);
  assert.equal(f.boolean('anonymous-auth'), true);
  assert.deepEqual(f.list('authorization-mode'), ['Node', 'RBAC']);
  assert.equal(f.string('data-dir'), undefined);
});

test('both value forms, booleans and repeatable lists', () => {
  const f = parseFlags(
    ['--secure-port=7443', '--data-dir', '/x', '--anonymous-auth=false', '--authorization-mode=RBAC', '--authorization-mode', 'Webhook,AlwaysDeny'],
    defs,
  );
  assert.equal(f.number('secure-port'), 7443);
  assert.equal(f.string('data-dir'), '/x');
  assert.equal(f.boolean('anonymous-auth'), false);
  assert.deepEqual(f.list('authorization-mode'), ['RBAC', 'Webhook', 'AlwaysDeny']);
});

test('durations and errors', () => {
  assert.equal(parseDuration('1m30s'), 90_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('5'), 5000);
  assert.throws(() => parseDuration('5x'), FlagError);
  assert.throws(() => parseFlags(['--nope'], defs), /unknown flag: --nope/);
  assert.throws(() => parseFlags(['--secure-port=abc'], defs), FlagError);
  assert.throws(() => parseFlags(['--data-dir'], defs), /needs an argument/);
  assert.equal(parseFlags(['--shutdown-delay-duration=2s'], defs).number('shutdown-delay-duration'), 2000);
});
