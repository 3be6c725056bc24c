// IP address checks of the core and discovery kinds, with Kubernetes' messages: a valid
// address, of the right family, and for Endpoints not a special one (unspecified, loopback,
// link-local, link-local multicast), so no Service can point a proxy at the server's host.
import { invalidField, type FieldError } from '../../apimachinery/errors.js';
import { INVALID_IP_MESSAGE, parseIP } from './service-ip.js';

export function validateIP(value: unknown, path: string): FieldError[] {
  return typeof value === 'string' && parseIP(value) ? [] : [invalidField(path, value ?? '', INVALID_IP_MESSAGE)];
}

export function validateIPOfFamily(value: unknown, family: 'IPv4' | 'IPv6', path: string): FieldError[] {
  const ip = typeof value === 'string' ? parseIP(value) : undefined;
  return ip?.family === family ? [] : [invalidField(path, value ?? '', `must be a valid ${family} address`)];
}

/** Kubernetes' ValidateNonSpecialIP (1.27 messages). */
export function validateNonSpecialIP(value: unknown, path: string): FieldError[] {
  const ip = typeof value === 'string' ? parseIP(value) : undefined;
  if (!ip) return [invalidField(path, value ?? '', 'must be a valid IP address')];
  const errs: FieldError[] = [];
  const v = ip.value;
  const v4 = ip.family === 'IPv4';
  if (v === 0n) errs.push(invalidField(path, value, 'may not be unspecified (0.0.0.0)'));
  if (v4 ? v >> 24n === 127n : v === 1n) errs.push(invalidField(path, value, 'may not be in the loopback range (127.0.0.0/8)'));
  if (v4 ? v >> 16n === 0xa9fen : v >> 118n === 0x3fan) errs.push(invalidField(path, value, 'may not be in the link-local range (169.254.0.0/16)'));
  if (v4 ? v >> 8n === 0xe00000n : v >> 112n === 0xff02n) errs.push(invalidField(path, value, 'may not be in the link-local multicast range (224.0.0.0/24)'));
  return errs;
}
