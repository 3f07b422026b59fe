// Dependency rules of the layout, enforced (README "File map"). Two kinds:
//
// 1. Layers. Every product file belongs to one layer (a folder, or chassis/platform.ts and
//    chassis/main.ts); LAYERS says which other layers its files may import. Lower layers never
//    import higher ones and siblings (ha/ipmi/dataplane/snmp; scenarios/split/clia) never each other:
//    they meet through a port type declared on the lower side. `import type` and `export … from`
//    count. Relative import strings are matched by folder name (`**/io/**`), so a layer's folder
//    name must not be reused for a folder inside another layer (test/lint/layering.test.ts checks).
// 2. I/O. The core does no I/O: only chassis/io/, chassis/cli/, chassis/main.ts and ui/ touch the
//    OS, sockets, SQLite or the screen (blessed only in ui/); no timers, wall-clock reads or
//    randomness except through the Platform seam (chassis/platform.ts). node:crypto's deterministic
//    primitives (hashes, HMAC, AES, constant-time compare) are computation and are allowed in the
//    two RMCP+/IPMI 1.5 crypto files only; its random functions only in chassis/io/.
//
// test/lint/layering.test.ts lints fixtures (test/fixtures/lint/) as if they sat at forbidden places.
import tseslint from 'typescript-eslint';

const BOARD = ['board/common', 'board/packet', 'board/switch', 'board/processor'];
const BELOW_MODEL = [...BOARD, 'chassis/platform.ts', 'chassis/sensors', 'chassis/config', 'chassis/persistence'];
const MODEL_AND_BELOW = [...BELOW_MODEL, 'chassis/model'];
const NODE_SIBLINGS = ['chassis/ha', 'chassis/ipmi', 'chassis/dataplane'];
/** The SNMP agent's pure MIB model (rows, OIDs, notifications): beside ipmi, never importing it. */
const SNMP = 'chassis/snmp';
const SIM_AND_BELOW = [...MODEL_AND_BELOW, ...NODE_SIBLINGS, SNMP, 'chassis/consoles', 'chassis/sim'];
const CORE_LAYERS = [...SIM_AND_BELOW, 'chassis/runtime', 'chassis/scenarios', 'chassis/split', 'chassis/clia'];

/**
 * Layer → the layers its files may import (besides their own layer). The target layering:
 * ground (board/common) → packet → switch | processor → platform seam → sensors → config →
 * persistence → model → ha | ipmi | dataplane | snmp → consoles → sim → runtime → scenarios | split |
 * clia → io (edge) → cli, main.ts (top); ui beside the top.
 */
export const LAYERS = {
  'board/common': [],
  'board/packet': ['board/common'],
  'board/switch': ['board/common', 'board/packet'],
  'board/processor': ['board/common', 'board/packet'],
  'chassis/platform.ts': ['board/common'],
  'chassis/sensors': [...BOARD, 'chassis/platform.ts'],
  'chassis/config': [...BOARD, 'chassis/platform.ts', 'chassis/sensors'],
  'chassis/persistence': [...BOARD, 'chassis/platform.ts', 'chassis/sensors', 'chassis/config'],
  'chassis/model': BELOW_MODEL,
  'chassis/ha': MODEL_AND_BELOW,
  'chassis/ipmi': MODEL_AND_BELOW,
  'chassis/dataplane': MODEL_AND_BELOW,
  // the SNMP MIB model (ENTITY-MIB, ENTITY-SENSOR-MIB rows from the Shelf); the agent and its socket are in io
  [SNMP]: MODEL_AND_BELOW,
  // the consoles show sessions/RS (dataplane); ha/ipmi only through a port type
  'chassis/consoles': [...MODEL_AND_BELOW, 'chassis/dataplane'],
  // the simulator: fault interpreter, links with injectable faults, per-node clocks, oracle, …
  'chassis/sim': [...MODEL_AND_BELOW, ...NODE_SIBLINGS, 'chassis/consoles'],
  // the Emulator composition: never the simulator (the live shelf gets its links and node faults
  // handed in by the composition root; scenarios hand in simulated ones)
  'chassis/runtime': SIM_AND_BELOW.filter((l) => l !== 'chassis/sim'),
  // scenarios drive the emulator through runtime's face: no chassis/ipmi (Emulator.ipmi does it)
  'chassis/scenarios': [...SIM_AND_BELOW.filter((l) => l !== 'chassis/ipmi'), 'chassis/runtime'],
  'chassis/split': [...SIM_AND_BELOW, 'chassis/runtime'],
  'chassis/clia': [...SIM_AND_BELOW, 'chassis/runtime'],
  // adapters implement the core's ports; never cli/ or ui/
  'chassis/io': CORE_LAYERS,
  // ui/ only by dynamic import() inside the verb that needs it (not matched by this rule)
  'chassis/cli': [...CORE_LAYERS, 'chassis/io'],
  'chassis/main.ts': [...CORE_LAYERS, 'chassis/io', 'chassis/cli'],
  // types and views of the running emulator; never io/, cli/, SQLite
  ui: ['chassis/runtime', 'chassis/model', 'chassis/dataplane', 'board/common'],
};

/**
 * TEMPORARY (the restructuring in progress): known violations in code that parts A and B of the
 * restructuring are changing in parallel. file → layers it may import for now; everything else in
 * LAYERS holds for it. test/lint/layering.test.ts fails on an entry that is no longer needed, so
 * the list empties as the parts land. Nothing outside these files is exempt.
 */
export const TEMPORARY_ALLOWLIST = [];

/** The files of a layer (a folder, or one file). */
export function layerFiles(layer) {
  return layer.endsWith('.ts') ? [layer] : [`${layer}/**/*.ts`];
}

/** The import-string patterns that reach a layer (by its folder or file name). */
function layerPatterns(layer) {
  const name = layer.split('/').pop();
  return name.endsWith('.ts') ? [`**/${name}`] : [`**/${name}`, `**/${name}/**`];
}

const EDGE = ['chassis/io', 'chassis/cli', 'chassis/main.ts', 'ui'];
const NODE_IO = ['dgram', 'fs', 'fs/promises', 'net', 'child_process', 'http', 'https', 'http2', 'dns', 'tls', 'os', 'tty', 'readline', 'worker_threads', 'cluster', 'perf_hooks', 'process'];
const IO_MODULES = [...NODE_IO.flatMap((m) => [`node:${m}`, m]), 'serialport', '@serialport/*', 'better-sqlite3', 'blessed', 'pino', 'commander', 'cli-progress'];
/** node:crypto's deterministic primitives (RMCP+ integrity/confidentiality, IPMI 1.5 MD5 auth codes). */
export const DETERMINISTIC_CRYPTO = ['createHash', 'createHmac', 'createCipheriv', 'createDecipheriv', 'timingSafeEqual'];
/** The only core files that may import them. */
export const CRYPTO_COMPUTATION_FILES = ['chassis/ipmi/crypto.ts', 'chassis/ipmi/session15.ts'];

function cryptoPaths(allowed, message) {
  return ['node:crypto', 'crypto'].map((name) => (allowed ? { name, allowImportNames: DETERMINISTIC_CRYPTO, message } : { name, message }));
}

/** A layer list for messages, board/* folded. */
function listLayers(layers) {
  const all = BOARD.every((b) => layers.includes(b));
  const rest = layers.filter((l) => !(all && BOARD.includes(l)));
  return [...(all ? ['board/*'] : []), ...rest].join(', ') || 'nothing of the repository';
}

/**
 * The no-restricted-imports options of one layer (or, with `file`, of one file of it).
 * @param extra layers the file may import on top of LAYERS (the temporary allowlist)
 */
function importRule(layer, extra = [], file = undefined) {
  const may = new Set([layer, ...LAYERS[layer], ...extra]);
  const patterns = Object.keys(LAYERS)
    .filter((other) => !may.has(other))
    .map((other) => ({
      group: layerPatterns(other),
      message:
        other === 'ui' && layer.startsWith('chassis/cli')
          ? 'chassis/cli loads ui/ only by dynamic import() inside the verb that needs it'
          : `${layer} must not import ${other} (eslint.config.js LAYERS: ${layer} may import ${listLayers(LAYERS[layer])})`,
    }));
  patterns.push({ group: ['**/test/**', '**/bench/**', '**/shared/**'], message: 'the product never imports tests, benchmarks or ../shared' });
  const paths = [];
  if (!EDGE.includes(layer)) {
    patterns.push({ group: IO_MODULES, message: 'the core does no I/O: put OS access in chassis/io/ and pass a port in' });
    paths.push(...cryptoPaths(CRYPTO_COMPUTATION_FILES.includes(file), CRYPTO_COMPUTATION_FILES.includes(file)
      ? 'only the deterministic node:crypto primitives here; random bytes come from Platform.cryptoRandom'
      : `node:crypto only in ${CRYPTO_COMPUTATION_FILES.join(' and ')} (computation) or chassis/io/ (randomness, through Platform.cryptoRandom)`));
  } else if (layer !== 'ui') {
    patterns.push({ group: ['blessed'], message: 'blessed only in ui/' });
    if (layer !== 'chassis/io') paths.push(...cryptoPaths(true, 'secret-grade randomness comes from chassis/io/crypto-random.ts (the Platform seam\'s implementation)'));
  } else {
    patterns.push({ group: ['better-sqlite3'], message: 'ui/ never touches SQLite: read the emulator\'s views' });
  }
  return { patterns, paths };
}

/** The layer a product file belongs to, or undefined. */
export function layerOf(file) {
  return Object.keys(LAYERS).find((l) => (l.endsWith('.ts') ? file === l : file.startsWith(`${l}/`)));
}

const coreIgnores = EDGE.flatMap(layerFiles).map((g) => g.replace('/**/*.ts', '/**'));

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'bin/**', 'test/fixtures/lint/**'] },
  {
    files: ['**/*.ts'],
    languageOptions: { parser: tseslint.parser },
  },
  {
    files: ['board/**/*.ts', 'chassis/**/*.ts'],
    ignores: coreIgnores,
    rules: {
      'no-restricted-globals': ['error',
        { name: 'setTimeout', message: 'use the injected Clock' },
        { name: 'setInterval', message: 'use the injected Clock' },
        { name: 'setImmediate', message: 'use the injected Clock' },
        { name: 'performance', message: 'use the injected Clock' },
        { name: 'crypto', message: 'randomness comes from the Platform (random, cryptoRandom)' },
        { name: 'process', message: 'the core does no I/O: the composition root (chassis/cli) reads the process' }],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'use the injected Clock' },
        { object: 'Math', property: 'random', message: 'use the injected Random' }],
      'no-restricted-syntax': ['error',
        { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'new Date() reads the wall clock: use the injected Clock' },
        { selector: 'ImportExpression', message: 'no dynamic import() in the core (the layering rules cannot see it)' },
        { selector: 'TSImportType', message: 'no import() types in the core: use an `import type` declaration' }],
    },
  },
  ...Object.keys(LAYERS).map((layer) => ({
    files: layerFiles(layer),
    rules: { 'no-restricted-imports': ['error', importRule(layer)] },
  })),
  ...CRYPTO_COMPUTATION_FILES.map((file) => ({
    files: [file],
    rules: { 'no-restricted-imports': ['error', importRule(layerOf(file), [], file)] },
  })),
  ...TEMPORARY_ALLOWLIST.map(({ file, may }) => ({
    files: [file],
    rules: { 'no-restricted-imports': ['error', importRule(layerOf(file), may, file)] },
  })),
);
