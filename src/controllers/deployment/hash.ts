// The pod-template-hash: an FNV-32a hash of the pod template and the Deployment's collision
// count, printed in decimal and encoded with kube's safe alphabet (no vowels, no 0/1/3), so
// that names never spell words. kube hashes Go's deep printing of the template struct; this
// hashes the template's canonical JSON (keys sorted), which is stable across restarts and
// releases of this server but gives other strings than kube's for the same template.

/** kube's `rand.SafeEncodeString` alphabet. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** Each byte of `s` mapped onto the safe alphabet (kube's `rand.SafeEncodeString`). */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += SAFE_ALPHABET[s.charCodeAt(i) % SAFE_ALPHABET.length];
  return out;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function fnv32a(bytes: Uint8Array, h = FNV_OFFSET): number {
  for (const b of bytes) h = Math.imul(h ^ b, FNV_PRIME) >>> 0;
  return h >>> 0;
}

/** JSON with object keys sorted at every depth: one text per value. */
export function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJSON(v === undefined ? null : v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The hash of `template` with `collisionCount` (as kube appends it: 8 bytes, little-endian uint32 first). */
export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(new TextEncoder().encode(canonicalJSON(template ?? {})));
  if (collisionCount !== undefined) {
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setUint32(0, collisionCount >>> 0, true);
    h = fnv32a(bytes, h);
  }
  return safeEncodeString(String(h));
}
