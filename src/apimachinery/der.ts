// Reading DER (X.509 certificates, PKCS#10 requests): one element's tag and bounds, and the
// elements inside a constructed one. Lengths of more than four bytes are refused: nothing
// the server reads is that large.

export interface DerElement {
  tag: number;
  /** Where the tag byte is: the whole element is `der.subarray(at, end)`. */
  at: number;
  /** Where the contents start. */
  contents: number;
  end: number;
}

/** The messages of a malformed encoding, so that each reader can speak as its reference does. */
export interface DerErrors {
  truncated: string;
  badLength: string;
}

const PLAIN: DerErrors = { truncated: 'truncated DER', badLength: 'bad DER length' };

export function readDerElement(der: Uint8Array, at: number, errors: DerErrors = PLAIN): DerElement {
  if (at + 2 > der.length) throw new Error(errors.truncated);
  let length = der[at + 1]!;
  let contents = at + 2;
  if (length & 0x80) {
    const n = length & 0x7f;
    if (n === 0 || n > 4 || contents + n > der.length) throw new Error(errors.badLength);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + der[contents + i]!;
    contents += n;
  }
  if (contents + length > der.length) throw new Error(errors.truncated);
  return { tag: der[at]!, at, contents, end: contents + length };
}

/** The elements inside a constructed element, in order. */
export function derChildren(der: Uint8Array, parent: DerElement, errors: DerErrors = PLAIN): DerElement[] {
  const out: DerElement[] = [];
  for (let at = parent.contents; at < parent.end; ) {
    const e = readDerElement(der, at, errors);
    out.push(e);
    at = e.end;
  }
  return out;
}
