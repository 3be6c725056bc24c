// Generates the schema catalog (src/schema/catalog.json) from the upstream Go type
// definitions and generated.proto files of the release 1.27 API, read straight from git
// repositories at a tag. See README.md beside this file.
//
//   node <build>/tools/catalog/generate.js --api <git dir> --apimachinery <git dir> \
//     --apiextensions <git dir> --aggregator <git dir> --reference <api-resources.json> \
//     [--tag v0.27.16] [--out src/schema/catalog.json]

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Catalog, FieldDef, ProtobufField, ScalarType, TypeDef, TypeRef } from '../../src/schema/catalog-types.js';
import { emptyPackage, readGoFile, type GoField, type GoPackage } from './go-source.js';
import { readProtoFile, type ProtoFile } from './proto-source.js';

interface Options {
  tag: string;
  repos: { prefix: string; gitDir: string; root: string }[];
  reference: string;
  out: string;
}

interface ReferenceResource {
  group: string;
  version: string;
  kind: string;
  subresources: { name: string; kind: string; group?: string; version?: string }[];
}

const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';

/** Types with a custom JSON form: they are leaf values in the catalog. */
const SPECIAL_SCALARS: Record<string, ScalarType> = {
  'k8s.io/apimachinery/pkg/api/resource.Quantity': 'quantity',
  'k8s.io/apimachinery/pkg/util/intstr.IntOrString': 'int-or-string',
  [`${META}.Time`]: 'time',
  [`${META}.MicroTime`]: 'micro-time',
  [`${META}.Duration`]: 'duration',
  [`${META}.FieldsV1`]: 'fields-v1',
  'k8s.io/apimachinery/pkg/runtime.RawExtension': 'raw-extension',
  'k8s.io/apimachinery/pkg/runtime.Object': 'raw-extension',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON': 'json',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray': 'json',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool': 'json',
  'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray': 'json',
};

const GO_SCALARS: Record<string, ScalarType> = {
  string: 'string',
  bool: 'boolean',
  int32: 'int32',
  int64: 'int64',
  int: 'int64',
  uint32: 'int64',
  uint64: 'int64',
  int16: 'int32',
  uint16: 'int32',
  int8: 'int32',
  uint8: 'int32',
  byte: 'int32',
  float64: 'float64',
  float32: 'float64',
  'interface{}': 'json',
  any: 'json',
};

/** Meta types that are roots of the catalog besides the served kinds. */
const META_ROOTS = [
  'ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions',
  'GetOptions', 'ListOptions', 'Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList',
  'WatchEvent', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions', 'Patch', 'List',
];

function parseArgs(argv: string[]): Options {
  const get = (name: string, fallback?: string): string => {
    const i = argv.indexOf(`--${name}`);
    const v = i >= 0 ? argv[i + 1] : fallback;
    if (v === undefined) throw new Error(`missing --${name}`);
    return v;
  };
  return {
    tag: get('tag', 'v0.27.16'),
    repos: [
      { prefix: 'k8s.io/api/', gitDir: get('api'), root: '' },
      { prefix: 'k8s.io/apimachinery/', gitDir: get('apimachinery'), root: '' },
      { prefix: 'k8s.io/apiextensions-apiserver/', gitDir: get('apiextensions'), root: '' },
      { prefix: 'k8s.io/kube-aggregator/', gitDir: get('aggregator'), root: '' },
    ],
    reference: get('reference'),
    out: get('out', 'src/schema/catalog.json'),
  };
}

class Sources {
  private readonly packages = new Map<string, GoPackage>();
  private readonly protos = new Map<string, ProtoFile | undefined>();

  constructor(private readonly opts: Options) {}

  private locate(importPath: string): { gitDir: string; dir: string } | undefined {
    for (const r of this.opts.repos) {
      if (importPath.startsWith(r.prefix)) return { gitDir: r.gitDir, dir: importPath.slice(r.prefix.length) };
    }
    return undefined;
  }

  private git(gitDir: string, args: string[]): string {
    return execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  }

  listDirs(repoPrefix: string): string[] {
    const r = this.opts.repos.find((x) => x.prefix === repoPrefix)!;
    return this.git(r.gitDir, ['ls-tree', '-r', '--name-only', this.opts.tag])
      .split('\n')
      .filter((p) => p.endsWith('/register.go'))
      .map((p) => repoPrefix + p.slice(0, -'/register.go'.length));
  }

  pkg(importPath: string): GoPackage | undefined {
    if (this.packages.has(importPath)) return this.packages.get(importPath);
    const loc = this.locate(importPath);
    if (!loc) return undefined;
    const pkg = emptyPackage(importPath);
    const names = this.git(loc.gitDir, ['ls-tree', '--name-only', this.opts.tag, `${loc.dir}/`])
      .split('\n')
      .filter((n) => n.endsWith('.go'))
      .filter((n) => !/(_test|_fuzz|generated\.pb|swagger_doc_generated|zz_generated[^/]*)\.go$/.test(n));
    for (const n of names) readGoFile(pkg, this.git(loc.gitDir, ['show', `${this.opts.tag}:${n}`]));
    this.packages.set(importPath, pkg);
    return pkg;
  }

  proto(importPath: string): ProtoFile | undefined {
    if (this.protos.has(importPath)) return this.protos.get(importPath);
    const loc = this.locate(importPath);
    let file: ProtoFile | undefined;
    if (loc) {
      try {
        file = readProtoFile(this.git(loc.gitDir, ['show', `${this.opts.tag}:${loc.dir}/generated.proto`]));
      } catch {
        file = undefined;
      }
    }
    this.protos.set(importPath, file);
    return file;
  }
}

/** `k8s.io/api/core/v1` + `Pod` is `io.k8s.api.core.v1.Pod` (the OpenAPI definition name). */
export function openapiId(importPath: string, name: string): string {
  const [host, ...rest] = importPath.split('/');
  return [...host.split('.').reverse(), ...rest, name].join('.');
}

/** Splits `map[K]V` into K and V, respecting nested brackets. */
function splitMap(t: string): [string, string] {
  let depth = 0;
  for (let i = 4; i < t.length; i++) {
    if (t[i] === '[') depth++;
    else if (t[i] === ']') {
      if (depth === 0) return [t.slice(4, i), t.slice(i + 1)];
      depth--;
    }
  }
  throw new Error(`bad map type ${t}`);
}

interface Resolved {
  type: TypeRef;
  pointer: boolean;
  enum?: string[];
}

class Generator {
  readonly types = new Map<string, TypeDef>();
  private readonly queue: { pkg: string; name: string }[] = [];
  readonly warnings: string[] = [];

  constructor(private readonly src: Sources) {}

  /** Adds a struct type (and, later, everything it reaches) to the catalog; returns its id. */
  require(importPath: string, name: string): string {
    const id = openapiId(importPath, name);
    if (!this.types.has(id)) {
      this.types.set(id, { id, fields: [] });
      this.queue.push({ pkg: importPath, name });
    }
    return id;
  }

  drain(): void {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) this.build(item.pkg, item.name);
  }

  private resolve(pkg: GoPackage, goType: string): Resolved {
    let t = goType.trim();
    let pointer = false;
    if (t.startsWith('*')) {
      pointer = true;
      t = t.slice(1);
    }
    if (t === '[]byte') return { type: { scalar: 'bytes' }, pointer };
    if (t.startsWith('[]')) {
      const inner = this.resolve(pkg, t.slice(2));
      return { type: { list: inner.type }, pointer, enum: inner.enum };
    }
    if (t.startsWith('map[')) {
      const [, v] = splitMap(t);
      const inner = this.resolve(pkg, v);
      return { type: { map: inner.type }, pointer, enum: inner.enum };
    }
    if (GO_SCALARS[t]) return { type: { scalar: GO_SCALARS[t] }, pointer };
    let target = pkg;
    let name = t;
    const dot = t.indexOf('.');
    if (dot > 0) {
      const path = pkg.imports.get(t.slice(0, dot));
      name = t.slice(dot + 1);
      if (!path) throw new Error(`unknown import ${t} in ${pkg.importPath}`);
      if (path === 'k8s.io/apimachinery/pkg/types') return { type: { scalar: 'string' }, pointer };
      const special = SPECIAL_SCALARS[`${path}.${name}`];
      if (special) return { type: { scalar: special }, pointer };
      const p = this.src.pkg(path);
      if (!p) {
        this.warnings.push(`no source for ${path}.${name}; recorded as json`);
        return { type: { scalar: 'json' }, pointer };
      }
      target = p;
    } else {
      const special = SPECIAL_SCALARS[`${pkg.importPath}.${name}`];
      if (special) return { type: { scalar: special }, pointer };
    }
    if (target.structs.has(name)) return { type: { ref: this.require(target.importPath, name) }, pointer };
    const named = target.named.get(name);
    if (named) {
      const inner = this.resolve(target, named.underlying);
      const values = target.constants.get(name);
      if (named.markers.enum && values && 'scalar' in inner.type) {
        return { type: inner.type, pointer: pointer || inner.pointer, enum: [...values].sort() };
      }
      return { type: inner.type, pointer: pointer || inner.pointer, enum: inner.enum };
    }
    this.warnings.push(`unresolved type ${t} in ${pkg.importPath}; recorded as json`);
    return { type: { scalar: 'json' }, pointer };
  }

  private build(importPath: string, name: string): void {
    const pkg = this.src.pkg(importPath)!;
    const st = pkg.structs.get(name)!;
    const def = this.types.get(openapiId(importPath, name))!;
    const proto = this.src.proto(importPath);
    const message = proto?.messages.get(name);
    if (message) def.protobufMessage = `${proto!.package}.${name}`;
    const structType = st.markers.structType?.[0];
    if (structType === 'atomic' || structType === 'granular') def.structType = structType;
    def.fields = this.fieldsOf(pkg, st.fields, message);
  }

  private fieldsOf(pkg: GoPackage, goFields: GoField[], message: Map<number, ProtobufField> | undefined): FieldDef[] {
    const out: FieldDef[] = [];
    for (const gf of goFields) {
      const json = gf.tags.json;
      if (json === '-') continue;
      const [jsonName, ...opts] = (json ?? '').split(',');
      const inline = opts.includes('inline') || (json === undefined && gf.goName === '');
      const protoTag = gf.tags.protobuf;
      if (inline && !protoTag) {
        // Embedded without its own protobuf field (TypeMeta): its fields are this type's.
        const r = this.resolve(pkg, gf.goType);
        if ('ref' in r.type) {
          this.drain();
          // The embedded type's own protobuf numbers do not apply in the embedding message.
          for (const f of this.types.get(r.type.ref)?.fields ?? []) {
            const { protobuf: _unused, ...rest } = f;
            void _unused;
            out.push(rest);
          }
        }
        continue;
      }
      if (json === undefined && gf.goName && !protoTag) continue; // not serialized by name
      const r = this.resolve(pkg, gf.goType);
      const omitEmpty = opts.includes('omitempty');
      const f: FieldDef = {
        name: inline ? (/name=(\w+)/.exec(protoTag ?? '')?.[1] ?? gf.goName) : jsonName || gf.goName,
        type: r.type,
        required: Boolean(gf.markers.required) || (!omitEmpty && !gf.markers.optional && !inline),
        omitEmpty,
      };
      if (r.pointer) f.pointer = true;
      if (inline) f.inline = true;
      if (protoTag) {
        const number = Number(protoTag.split(',')[1]);
        const declared = message?.get(number);
        f.protobuf = declared ? { ...declared } : fallbackProto(protoTag);
      }
      const strategy = gf.tags.patchStrategy ?? gf.markers.patchStrategy?.[0];
      if (strategy) f.patchStrategy = strategy.split(',').map((s) => s.trim()).filter(Boolean);
      const mergeKey = gf.tags.patchMergeKey ?? gf.markers.patchMergeKey?.[0];
      if (mergeKey) f.patchMergeKey = mergeKey;
      const listType = gf.markers.listType?.[0];
      if (listType === 'atomic' || listType === 'set' || listType === 'map') f.listType = listType;
      if (gf.markers.listMapKey) f.listMapKeys = [...gf.markers.listMapKey];
      const mapType = gf.markers.mapType?.[0];
      if (mapType === 'atomic' || mapType === 'granular') f.mapType = mapType;
      if (r.enum) f.enum = r.enum;
      out.push(f);
    }
    return out;
  }
}

function fallbackProto(tag: string): ProtobufField {
  const [wire, number, label] = tag.split(',');
  const type = wire === 'varint' ? 'int64' : wire === 'fixed64' ? 'double' : 'bytes';
  return { number: Number(number), type, label: label === 'rep' ? 'repeated' : 'optional' };
}

/** Writes one type per line so that regenerating shows small, readable diffs. */
function serialize(catalog: Catalog): string {
  const ids = Object.keys(catalog.types).sort();
  const lines = ids.map((id) => `${JSON.stringify(id)}:${JSON.stringify(catalog.types[id])}`);
  return `{"source":${JSON.stringify(catalog.source)},"types":{\n${lines.join(',\n')}\n}}\n`;
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  const src = new Sources(opts);
  const gen = new Generator(src);
  const reference = JSON.parse(readFileSync(opts.reference, 'utf8')) as ReferenceResource[];

  // Which package serves each group-version.
  const byGroupVersion = new Map<string, string>();
  const candidates = [
    ...src.listDirs('k8s.io/api/'),
    'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1',
    'k8s.io/kube-aggregator/pkg/apis/apiregistration/v1',
  ];
  for (const path of candidates) {
    const pkg = src.pkg(path);
    if (pkg?.groupName === undefined) continue;
    byGroupVersion.set(`${pkg.groupName}/${path.split('/').pop()}`, path);
  }

  const kinds = new Map<string, { group: string; version: string; kind: string }[]>();
  const addKind = (path: string, name: string, group: string, version: string, kind: string): void => {
    const pkg = src.pkg(path);
    if (!pkg?.structs.has(name)) return;
    const id = gen.require(path, name);
    const list = kinds.get(id) ?? [];
    if (!list.some((k) => k.group === group && k.version === version && k.kind === kind)) list.push({ group, version, kind });
    kinds.set(id, list);
  };
  const groupVersions = new Set<string>();
  const served: { group: string; version: string; kind: string }[] = [];
  for (const r of reference) {
    groupVersions.add(`${r.group}/${r.version}`);
    served.push({ group: r.group, version: r.version, kind: r.kind });
    for (const s of r.subresources) served.push({ group: s.group ?? r.group, version: s.version ?? r.version, kind: s.kind });
  }
  for (const k of served) {
    const path = byGroupVersion.get(`${k.group}/${k.version}`);
    if (!path) throw new Error(`no package for ${k.group}/${k.version}`);
    addKind(path, k.kind, k.group, k.version, k.kind);
    addKind(path, `${k.kind}List`, k.group, k.version, `${k.kind}List`);
    if (!src.pkg(path)?.structs.has(k.kind)) throw new Error(`no type for ${k.group}/${k.version} ${k.kind}`);
  }

  for (const name of META_ROOTS) gen.require(META, name);
  const metaKind = (name: string, group: string, version: string): void => addKind(META, name, group, version, name);
  for (const n of ['Status', 'APIResourceList', 'APIGroupList', 'APIGroup', 'APIVersions', 'List']) metaKind(n, '', 'v1');
  for (const n of ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList']) {
    metaKind(n, 'meta.k8s.io', 'v1');
    metaKind(n, 'meta.k8s.io', 'v1beta1');
  }
  metaKind('TableOptions', 'meta.k8s.io', 'v1');
  // Options and watch events are accepted in every served group-version, as upstream.
  for (const gv of ['/v1', 'meta.k8s.io/v1', ...[...groupVersions].sort()]) {
    const [group, version] = gv.split('/');
    for (const n of ['DeleteOptions', 'WatchEvent', 'CreateOptions', 'UpdateOptions', 'PatchOptions', 'GetOptions', 'ListOptions']) {
      metaKind(n, group, version);
    }
  }
  const discovery = 'k8s.io/api/apidiscovery/v2beta1';
  addKind(discovery, 'APIGroupDiscoveryList', 'apidiscovery.k8s.io', 'v2beta1', 'APIGroupDiscoveryList');
  addKind(discovery, 'APIGroupDiscovery', 'apidiscovery.k8s.io', 'v2beta1', 'APIGroupDiscovery');

  gen.drain();
  for (const [id, list] of kinds) gen.types.get(id)!.kinds = list;

  const types: Record<string, TypeDef> = {};
  for (const [id, def] of gen.types) types[id] = def;
  writeFileSync(opts.out, serialize({ source: opts.tag, types }));
  for (const w of [...new Set(gen.warnings)]) process.stderr.write(`warning: ${w}\n`);
  process.stdout.write(`wrote ${gen.types.size} types to ${opts.out}\n`);
}

main();
