import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError } from '../apimachinery/errors.js';
import { metaGroup, setFlavor } from '../naming/index.js';
import { createProtobufSerializer } from './protobuf/adapters.js';
import { parseAccept, parseMediaType } from './media-type.js';
import { negotiateInput, negotiateOutput, negotiatePatchType, wantsPretty } from './negotiate.js';
import { SerializerSet, jsonSerializer, yamlSerializer } from './serializer.js';

const set = new SerializerSet();

describe('media types', () => {
  it('parses parameters and several Accept values in order', () => {
    assert.deepEqual(parseMediaType('application/json;as=Table;v=v1;g=meta.x'), { type: 'application/json', params: { as: 'Table', v: 'v1', g: 'meta.x' } });
    assert.deepEqual(parseAccept('application/xml, application/json;q=0.5, text/plain;q=0').map((m) => m.type), ['application/xml', 'application/json']);
    assert.equal(parseMediaType('not a type'), undefined);
  });
});

describe('negotiateOutput', () => {
  it('defaults to JSON and falls back through the list', () => {
    assert.equal(negotiateOutput(undefined, set, 'object').contentType, 'application/json');
    assert.equal(negotiateOutput('*/*', set, 'object').serializer, jsonSerializer);
    assert.equal(negotiateOutput('text/html, application/yaml', set, 'list').serializer, yamlSerializer);
  });

  it('picks Table and PartialObjectMetadata representations for the meta group only', () => {
    const table = negotiateOutput(`application/json;as=Table;v=v1beta1;g=${metaGroup()}`, set, 'list');
    assert.deepEqual(table.representation, { as: 'Table', version: 'v1beta1' });
    assert.equal(table.contentType, `application/json;as=Table;v=v1beta1;g=${metaGroup()}`);
    const pom = negotiateOutput(`application/json;as=PartialObjectMetadata;v=v1;g=${metaGroup()}`, set, 'object');
    assert.equal(pom.representation.as, 'PartialObjectMetadata');
    const skipped = negotiateOutput(`application/json;as=PartialObjectMetadata;v=v1;g=${metaGroup()},application/json`, set, 'list');
    assert.equal(skipped.representation.as, 'Object');
  });

  it('serves each format under one name: other YAML names are refused, as kube-apiserver refuses them', () => {
    for (const name of ['text/yaml', 'application/x-yaml']) {
      assert.throws(() => negotiateOutput(name, set, 'object'), (e: unknown) => isApiError(e) && e.code === 406, name);
      assert.throws(() => negotiateInput(name, set), (e: unknown) => isApiError(e) && e.code === 415, name);
    }
  });

  it('passes over a serializer without a form for the kinds written, in and out', () => {
    const written: string[] = [];
    const binary = { ...jsonSerializer, mediaType: 'application/x-binary', canEncode: (k: { kind: string }) => (written.push(k.kind), k.kind.startsWith('Config')) };
    const withBinary = new SerializerSet();
    withBinary.register(binary);
    const cm = { group: '', version: 'v1', kind: 'ConfigMap' };
    assert.equal(negotiateOutput('application/x-binary', withBinary, 'list', { kind: cm }).serializer, binary);
    assert.deepEqual(written, ['ConfigMapList']);
    const widget = { group: 'x', version: 'v1', kind: 'Widget' };
    assert.equal(negotiateOutput('application/x-binary,application/yaml', withBinary, 'object', { kind: widget }).serializer, yamlSerializer);
    assert.throws(() => negotiateOutput('application/x-binary', withBinary, 'object', { kind: widget }), (e: unknown) => isApiError(e) && e.code === 406);
    assert.throws(() => negotiateOutput(`application/x-binary;as=Table;v=v1;g=${metaGroup()}`, withBinary, 'list', { kind: cm }), (e: unknown) => isApiError(e) && e.code === 406);
    assert.equal(negotiateInput('application/x-binary', withBinary, cm), binary);
    assert.throws(
      () => negotiateInput('application/x-binary', withBinary, widget),
      (e: unknown) => isApiError(e) && e.code === 415 && e.message.endsWith('include: application/json, application/yaml'),
    );
  });

  for (const flavor of ['orch', 'kubernetes'] as const) {
    it(`serves the binary media type of the ${flavor} flavor only, and its 406 and 415 name exactly what is served`, () => {
      setFlavor(flavor);
      try {
        const own = `application/vnd.${flavor}.protobuf`;
        const other = `application/vnd.${flavor === 'orch' ? 'kubernetes' : 'orch'}.protobuf`;
        const withBinary = new SerializerSet();
        withBinary.register(createProtobufSerializer());
        assert.equal(negotiateOutput(own, withBinary, 'object').contentType, own);
        assert.equal(negotiateInput(own, withBinary).mediaType, own);
        const refusal = (accept: string, target: 'object' | 'list' | 'watch'): string => {
          try {
            negotiateOutput(accept, withBinary, target);
          } catch (e) {
            if (isApiError(e) && e.code === 406) return e.message;
            throw e;
          }
          throw new Error(`${accept} was accepted`);
        };
        assert.equal(refusal(other, 'object'), `only the following media types are accepted: application/json, application/yaml, ${own}`);
        assert.equal(refusal(other, 'list'), `only the following media types are accepted: application/json, application/yaml, ${own}`);
        assert.equal(refusal(`${other},application/yaml`, 'watch'), `only the following media types are accepted: application/json;stream=watch, ${own};stream=watch`);
        assert.throws(
          () => negotiateInput(other, withBinary),
          (e: unknown) => isApiError(e) && e.code === 415 && e.message === `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, ${own}`,
        );
      } finally {
        setFlavor('orch');
      }
    });
  }

  it('answers 406 when nothing listed is supported, and refuses YAML for watch', () => {
    for (const [accept, target] of [['application/xml', 'object'], ['application/json;as=Table;v=v9;g=x', 'list'], ['application/yaml', 'watch']] as const) {
      assert.throws(() => negotiateOutput(accept, set, target), (e: unknown) => isApiError(e) && e.code === 406);
    }
  });
});

describe('negotiateInput and patch types', () => {
  it('reads JSON when no Content-Type is given and refuses unknown types with 415', () => {
    assert.equal(negotiateInput(undefined, set), jsonSerializer);
    assert.equal(negotiateInput('application/yaml; charset=utf-8', set), yamlSerializer);
    assert.throws(() => negotiateInput('text/csv', set), (e: unknown) => isApiError(e) && e.code === 415);
    assert.equal(negotiatePatchType('application/merge-patch+json; charset=UTF-8'), 'application/merge-patch+json');
    assert.throws(() => negotiatePatchType('application/json'), (e: unknown) => isApiError(e) && e.code === 415);
  });

  it('pretty-prints on ?pretty=true and for command-line HTTP clients', () => {
    assert.equal(wantsPretty(new URLSearchParams('pretty=true'), undefined), true);
    assert.equal(wantsPretty(new URLSearchParams('pretty=false'), 'curl/8'), false);
    assert.equal(wantsPretty(new URLSearchParams(''), 'curl/8'), true);
    assert.equal(wantsPretty(new URLSearchParams(''), 'kubectl/v1.27'), false);
  });
});

describe('serializers', () => {
  it('rejects deep nesting and malformed input with 400 before parsing', () => {
    const deep = Buffer.from('['.repeat(1000) + ']'.repeat(1000));
    assert.throws(() => jsonSerializer.decode(deep), (e: unknown) => isApiError(e) && e.code === 400);
    assert.throws(() => yamlSerializer.decode(Buffer.from('{a: '.repeat(500))), (e: unknown) => isApiError(e) && e.code === 400);
    assert.throws(() => jsonSerializer.decode(Buffer.from([0xff, 0xfe, 0x00])), (e: unknown) => isApiError(e) && e.code === 400);
    assert.deepEqual(jsonSerializer.decode(Buffer.from('{"a":"[[[[["}')), { a: '[[[[[' });
  });

  it('frames JSON with a trailing newline and YAML as a document', () => {
    assert.equal(Buffer.from(jsonSerializer.encode({ a: 1 }, { pretty: false })).toString(), '{"a":1}\n');
    assert.equal(Buffer.from(yamlSerializer.encode({ a: 1 }, { pretty: false })).toString(), 'a: 1\n');
  });
});
