// Media type parsing for Accept and Content-Type headers: `type/subtype;k=v;k2=v2`,
// several comma-separated values in Accept. Parameters keep their order; names are
// lower-cased, values are kept as sent (Kubernetes compares `as`, `g`, `v` exactly).

export interface MediaType {
  /** `application/json`, lower-cased, without parameters. */
  type: string;
  params: Record<string, string>;
}

export function parseMediaType(text: string): MediaType | undefined {
  const parts = splitOutsideQuotes(text, ';');
  const type = (parts.shift() ?? '').trim().toLowerCase();
  if (!/^[a-z0-9!#$&^_.+*-]+\/[a-z0-9!#$&^_.+*-]+$/.test(type)) return undefined;
  const params: Record<string, string> = {};
  for (const p of parts) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    const key = p.slice(0, eq).trim().toLowerCase();
    let value = p.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (key) params[key] = value;
  }
  return { type, params };
}

/** All media types of an Accept header, in the order sent; entries with `q=0` are dropped. */
export function parseAccept(header: string | undefined): MediaType[] {
  if (!header || header.trim() === '') return [];
  const out: MediaType[] = [];
  for (const piece of splitOutsideQuotes(header, ',')) {
    const mt = parseMediaType(piece);
    if (!mt) continue;
    if (mt.params.q !== undefined && Number(mt.params.q) === 0) continue;
    out.push(mt);
  }
  // Stable sort by quality: Kubernetes clients rarely send q, but honour it when they do.
  return out
    .map((m, i) => ({ m, i, q: m.params.q === undefined ? 1 : Number(m.params.q) || 0 }))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((x) => x.m);
}

function splitOutsideQuotes(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** `application/json;as=Table;g=meta.<domain>;v=v1` from a type and parameters, in the given order. */
export function formatMediaType(type: string, params: [string, string][] = []): string {
  return [type, ...params.map(([k, v]) => `${k}=${v}`)].join(';');
}
