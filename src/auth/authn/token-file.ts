// Static bearer tokens from --token-auth-file: CSV lines `token,user,uid[,"group1,group2"]`.
import { readFile } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../../apimachinery/types.js';
import type { AuthenticationResult } from '../types.js';
import { digest } from './secure-compare.js';
import type { TokenAuthenticator } from './union.js';

/** Splits one CSV record; quoted fields may hold commas and doubled quotes. */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(cur);
      cur = '';
    } else cur += c;
  }
  if (quoted) throw new Error('unterminated quoted field');
  fields.push(cur);
  return fields;
}

interface Entry {
  hash: Buffer;
  user: UserInfo;
}

/** Parses the file's text. Errors name the line, never the token. */
export function parseTokenFile(text: string): Entry[] {
  const entries: Entry[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let record: string[];
    try {
      record = parseCsvLine(line);
    } catch (e) {
      throw new Error(`token file line ${i + 1}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (record.length < 3) throw new Error(`token file line ${i + 1}: must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, name, uid] = record as [string, string, string];
    if (token === '') throw new Error(`token file line ${i + 1}: empty token`);
    const user: UserInfo = { username: name, uid, groups: [] };
    if (record.length >= 4 && record[3] !== '') user.groups = record[3]!.split(',').map((g) => g.trim());
    entries.push({ hash: digest(token), user });
  });
  return entries;
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  constructor(private readonly entries: Entry[]) {}

  static async fromFile(path: string): Promise<TokenFileAuthenticator> {
    return new TokenFileAuthenticator(parseTokenFile(await readFile(path, 'utf8')));
  }

  async authenticateToken(token: string): Promise<AuthenticationResult | null> {
    const h = digest(token);
    let found: UserInfo | undefined;
    // Every entry is compared, so the time taken does not depend on which one matches.
    for (const e of this.entries) if (timingSafeEqual(e.hash, h) && !found) found = e.user;
    return found ? { user: { ...found, groups: [...found.groups] } } : null;
  }
}
