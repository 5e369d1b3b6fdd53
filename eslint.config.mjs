// Lint (issue 24, item 5): type-aware rules that catch real bugs, and the folder layering of src/
// (../shared/DESIGN.md section 2, STYLE.md rule 14) as an import rule, so a NEW edge between folders
// fails `npm run lint` until someone decides it belongs in the layering below.
import tseslint from 'typescript-eslint';

/**
 * Which src/ folders (and files directly under src/, without `.ts`) each src/ folder may import.
 * Derived from the import graph of the tree at the time (every edge below existed then) and kept as
 * the ceiling: adding an edge is a design decision made here, in review, not by accident.
 * Principles it encodes:
 * - leaves import no other src/ folder: db (pool, transactions, migrations), errors, redis, storage,
 *   types, and config.ts (the only reader of process.env);
 * - ir/ is the canonical model: it imports nothing but a type from errors/ (see the exception below);
 * - protocols/ (the codecs) import only ir/ and errors/ besides each other;
 * - no src/ folder imports the composition files app.ts, server.ts, services.ts, nor anything
 *   outside src/ (test/, scripts/, workers/): an import that leaves src/ matches no allowed folder.
 */
const LAYERS = {
  account: ['audit', 'auth', 'billing', 'catalog', 'db', 'dependencies', 'errors', 'http', 'ir'],
  alerts: ['account', 'auth', 'config', 'db', 'dependencies', 'errors', 'net', 'redis', 'relay'],
  audit: ['db'],
  auth: ['audit', 'db', 'dependencies', 'errors', 'http', 'ir', 'upstream'],
  billing: ['catalog', 'db', 'dependencies', 'http', 'ir', 'limits', 'redis'],
  catalog: ['auth', 'db', 'dependencies', 'errors', 'ir', 'redis'],
  console: ['errors'],
  'count-tokens': ['auth', 'billing', 'catalog', 'dependencies', 'errors', 'http', 'ir', 'relay', 'upstream'],
  db: [],
  errors: [],
  // http/ renders errors in the caller's protocol envelope, so it knows the codec interface.
  http: ['db', 'dependencies', 'errors', 'ir', 'protocols'],
  idempotency: ['auth', 'dependencies', 'errors', 'http', 'redis'],
  images: ['auth', 'billing', 'catalog', 'config', 'dependencies', 'errors', 'http', 'idempotency', 'ir', 'limits', 'net', 'protocols', 'relay', 'routing', 'storage', 'upstream'],
  // Exception: ir/stream-event.ts carries a GatewayError in its error event (a type import only;
  // allowed through allowTypeImports below, so a runtime import of errors/ from ir/ still fails).
  ir: [],
  keys: ['audit', 'auth', 'catalog', 'db', 'dependencies', 'errors', 'http', 'limits'],
  // The outbound URL guard (image URLs, webhooks): address classification only, a leaf.
  net: [],
  limits: ['auth', 'db', 'dependencies', 'errors', 'http', 'redis'],
  openapi: ['alerts'],
  operator: ['account', 'audit', 'auth', 'billing', 'catalog', 'db', 'dependencies', 'errors', 'ir', 'limits', 'process', 'protocols', 'redis', 'relay', 'upstream'],
  process: ['auth', 'billing', 'catalog', 'config', 'db', 'dependencies', 'http', 'ir', 'keys', 'redis', 'storage', 'upstream'],
  protocols: ['errors', 'ir'],
  // Exception: the connection names the Redis target type of the config (a type import only, through
  // TYPE_ONLY below).
  redis: [],
  relay: ['auth', 'billing', 'catalog', 'db', 'dependencies', 'errors', 'http', 'ir', 'limits', 'net', 'protocols', 'redis', 'routing', 'upstream'],
  requests: ['account', 'audit', 'auth', 'db', 'dependencies', 'errors', 'http', 'operator', 'redis', 'routing'],
  routing: ['auth', 'db', 'dependencies', 'errors', 'http', 'ir', 'redis', 'upstream'],
  storage: [],
  tasks: ['auth', 'billing', 'catalog', 'db', 'dependencies', 'errors', 'http', 'idempotency', 'images', 'limits', 'net', 'protocols', 'redis', 'upstream'],
  types: [],
  upstream: ['db', 'dependencies', 'errors', 'ir', 'net', 'redis'],
};

/**
 * Imports allowed only as `import type` (documented exceptions). http/ names redis/'s StreamRider:
 * the access log hands a whole answer's request record, as the request log builds it, to the
 * settlement that appends it (redis/ is a leaf, so no cycle).
 */
const TYPE_ONLY = { ir: ['errors'], redis: ['config'], http: ['redis'] };

const escape = (name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One block per folder and file depth: a relative import that climbs to the level of src/ (`../` from
 * src/<folder>/, `../../` from src/<folder>/<sub>/) must name an allowed folder.
 */
function layeringBlocks() {
  return Object.entries(LAYERS).flatMap(([folder, allowed]) =>
    ['../', '../../'].map((up) => {
      const inside = up === '../' ? `src/${folder}/*.{ts,tsx}` : `src/${folder}/*/*.{ts,tsx}`;
      const typeOnly = TYPE_ONLY[folder] ?? [];
      const names = (list) => list.map(escape).join('|') || '(?!)';
      const patterns = [
        {
          regex: `^${escape(up)}(?!(?:${names([folder, ...allowed, ...typeOnly])})(?:/|$))`,
          message: `src/${folder}/ may import only: ${allowed.join(', ') || 'no other src/ folder'} (the layering in eslint.config.mjs; DESIGN.md section 2).`,
        },
      ];
      if (typeOnly.length > 0) {
        patterns.push({
          regex: `^${escape(up)}(?:${names(typeOnly)})(?:/|$)`,
          allowTypeImports: true,
          message: `src/${folder}/ may import ${typeOnly.join(', ')} as types only.`,
        });
      }
      return { files: [inside], rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] } };
    }),
  );
}

const OUTSIDE_SRC = {
  regex: '^(?:\\.\\./)+(?:test|scripts)(?:/|$)',
  message: 'Production code does not import test/ or scripts/.',
};

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', 'dist/**', 'test/clients/**', 'test/fixtures/**', 'console/dist/**', '**/*.js', '**/*.mjs', '**/*.cjs'],
  },
  {
    files: ['src/**/*.{ts,tsx}', 'workers/**/*.ts', 'scripts/**/*.ts', 'test/**/*.ts', 'console/src/**/*.{ts,tsx}'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    languageOptions: {
      parser: tseslint.parser,
      // Each file is typed by its nearest tsconfig.json (the root one, or console/tsconfig.json).
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // Promises: an unawaited or misplaced promise loses errors (an unhandled rejection ends the
      // process) or runs out of order; these are the bugs a type checker alone does not see.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-for-in-array': 'error',
      // Rethrowing a caught `unknown` passes the original failure on unchanged. Not enabled:
      // prefer-promise-reject-errors, whose only findings were callbacks' errors passed on to
      // reject() after an `if (error)` that narrows them from unknown to {}.
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true }],
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // A switch over a union handles every member (STYLE.md rule 7) unless it has a default.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Not enabled: no-unnecessary-type-assertion reports ~380 `!` after an indexed read (`rows[0]!`),
      // written on purpose so the code is ready for noUncheckedIndexedAccess; consistent-type-imports
      // is style (the formatter's round), not a bug.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      'no-debugger': 'error',
      'no-dupe-keys': 'error',
      'no-self-compare': 'error',
      'no-unreachable': 'error',
      'no-fallthrough': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // Tests read the JSON answers of official SDKs and raw HTTP as `any` in places; production may not.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Production code (src/, workers/) never imports tests or scripts.
    files: ['workers/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [OUTSIDE_SRC] }] },
  },
  {
    // Files directly under src/ (the composition root) may import any src/ folder, not test/ or scripts/.
    files: ['src/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [OUTSIDE_SRC] }] },
  },
  {
    // The console bundle shares only pure helpers with the API: the IR's names and two auth parsers.
    files: ['console/src/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{
          regex: '^(?:\\.\\./)+src/(?!ir/|auth/ip-rules$|auth/model-allowlist$)',
          message: 'The console imports from src/ only ir/ and the pure auth parsers (ip-rules, model-allowlist).',
        }],
      }],
    },
  },
  ...layeringBlocks(),
);
