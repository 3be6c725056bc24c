import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Item } from './interface.js';
import { ItemMemo } from './memo.js';

it('computes once per item and key', () => {
  const memo = new ItemMemo();
  const item: Item = { key: '/k', value: new TextEncoder().encode('{"a":1}'), createRevision: 1, modRevision: 1 };
  const sameRevisionElsewhere: Item = { ...item };
  let calls = 0;
  const decode = (i: Item): unknown => {
    calls++;
    return JSON.parse(new TextDecoder().decode(i.value));
  };
  const first = memo.get(item, 'json', decode);
  assert.equal(memo.get(item, 'json', decode), first);
  assert.equal(calls, 1);
  assert.deepEqual(memo.get(item, 'yaml', () => 'a: 1\n'), 'a: 1\n');
  memo.get(sameRevisionElsewhere, 'json', decode);
  assert.equal(calls, 2, 'a different Item object is a different entry');
});
