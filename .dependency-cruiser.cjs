// The import rules of docs/DESIGN.md's layer table, checked in CI (`npm run lint:deps`).
// Each folder of src/ may import only the folders below it in LAYERS; no file or folder may
// sit in an import cycle. Tests (*.test.ts) compose whatever they need, so the layer rule
// does not bind them, but they may not form cycles either.

/** src/ folders, top to bottom. Keep in step with the layer table in docs/DESIGN.md. */
const LAYERS = [
  'testing',
  'lib',
  'cli',
  'console',
  'aggregator',
  'server',
  'audit',
  'flowcontrol',
  'nodeagent',
  'scheduler',
  'controllers',
  'auth',
  'admission',
  'history',
  'registry',
  'apis',
  'apply',
  'patch',
  'client',
  'proxy',
  'codec',
  'schema',
  'storage',
  'rest',
  'apimachinery',
  'naming',
];

const TEST_FILE = '\\.test\\.ts$';

/** One rule per layer: nothing in it imports a layer above it. */
const upward = LAYERS.map((layer, i) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only the folders below it: ${LAYERS.slice(i + 1).join(', ') || 'none'}`,
  severity: 'error',
  from: { path: `^src/${layer}/`, pathNot: TEST_FILE },
  to: { path: `^src/(${LAYERS.slice(0, i).join('|') || '(?!)'})/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'layer-known',
      comment: 'every folder of src/ has a place in the layer table',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: `^src/(${LAYERS.join('|')})/` },
    },
    {
      name: 'no-cycles',
      comment: 'no file imports itself through others (type-only imports count too)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-test-imports',
      comment: 'product code never imports a test file',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_FILE },
      to: { path: TEST_FILE },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
