import { historyCases } from './cases.test.js';

historyCases('orch');
