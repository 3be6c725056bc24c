// Splits a byte stream of concatenated JSON objects (a watch response) into parsed values,
// whatever the chunk boundaries and whether or not documents are newline-separated.
import { StringDecoder } from 'node:string_decoder';

export class JsonStreamSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  /** Scan state carried between chunks. */
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;

  /** Feeds one chunk; returns the documents it completed. Throws on a malformed document. */
  push(chunk: Buffer | string): unknown[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const docs: unknown[] = [];
    let consumed = 0;
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 0x5c /* \ */) this.escaped = true;
        else if (c === 0x22 /* " */) this.inString = false;
        continue;
      }
      if (this.depth === 0 && c !== 0x7b && c !== 0x5b) {
        // Only whitespace may sit between documents.
        if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
        throw new SyntaxError('unexpected data between JSON documents');
      }
      if (c === 0x22) {
        this.inString = true;
      } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        this.depth--;
        if (this.depth < 0) throw new SyntaxError('unbalanced JSON in stream');
        if (this.depth === 0) {
          docs.push(JSON.parse(this.buffer.slice(this.start, i + 1)));
          consumed = i + 1;
          this.start = -1;
        }
      }
    }
    this.buffer = this.buffer.slice(consumed);
    this.scanned = this.buffer.length;
    if (this.start >= 0) this.start -= consumed;
    if (this.depth === 0) {
      this.buffer = '';
      this.scanned = 0;
    }
    return docs;
  }
}
