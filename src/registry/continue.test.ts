import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isApiError } from '../apimachinery/errors.js';
import { metaGroup } from '../naming/index.js';
import { decodeContinue, encodeContinue } from './continue.js';

function message(token: string): string {
  try {
    decodeContinue(token);
  } catch (e) {
    assert.ok(isApiError(e));
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail(`token ${token} was accepted`);
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

test('a token round-trips', () => {
  assert.deepEqual(decodeContinue(encodeContinue({ revision: 42, start: 'ns/a\u0000' })), { revision: 42, start: 'ns/a\u0000' });
});

test('a negative revision continues at the latest one', () => {
  const v = `${metaGroup()}/v1`;
  assert.deepEqual(decodeContinue(b64(`{"v":"${v}","rv":-1,"start":"ns/a"}`)), { revision: -1, start: 'ns/a' });
});

test("malformed tokens are 400 in Kubernetes' words, not the runtime's", () => {
  const prefix = 'invalid continue token: continue key is not valid';
  assert.equal(message('garbage'), `${prefix}: invalid character '\\u0081' looking for beginning of value`);
  assert.equal(message('a*b'), `${prefix}: illegal base64 data at input byte 1`);
  assert.equal(message(b64('{"v":')), `${prefix}: unexpected end of JSON input`);
  assert.equal(message(b64('[1]')), `${prefix}: json: cannot unmarshal array into Go value of type storage.continueToken`);
  assert.equal(message(b64('{}')), `${prefix}: server does not recognize this encoded version `);
  assert.equal(message(b64('{"v":"x/v1"}')), `${prefix}: server does not recognize this encoded version x/v1`);
  const v = `${metaGroup()}/v1`;
  assert.equal(message(b64(`{"v":"${v}","rv":0,"start":"a"}`)), `${prefix}: incorrect encoded start resourceVersion (version ${v})`);
  assert.equal(message(b64(`{"v":"${v}","rv":3,"start":""}`)), `${prefix}: encoded start key empty (version ${v})`);
  assert.equal(message(b64(`{"v":"${v}","rv":3,"start":"../x"}`)), `${prefix}: ../x`);
  assert.equal(message(b64(`{"v":"${v}","rv":3,"start":"a//b"}`)), `${prefix}: a//b`);
});
