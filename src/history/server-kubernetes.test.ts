import { historyCases } from './cases.test.js';

historyCases('kubernetes');
