// @peculiar/x509 with what it needs loaded first: its dependency injection container
// (tsyringe) insists on a Reflect metadata API, which a tiny store provides here.
import './reflect-metadata.js';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
