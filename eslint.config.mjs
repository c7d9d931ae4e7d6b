// ESLint for the whole repository: the IAM (iam/) and the gateway (the Nuxt app at the root), one
// flat config built by @nuxt/eslint-config (standalone: it sets up the JavaScript, TypeScript, Vue
// and import-x plugins itself, no Nuxt module needed) plus the import boundaries between layers.
import { createConfigForNuxt } from '@nuxt/eslint-config'
import { createNodeResolver } from 'eslint-plugin-import-x'
import publicApi from './scripts/lint/public-api.mjs'

// The gateway's own folders (Nuxt app and its server): from iam/ they may import only the client
// and the contract.
const GATEWAY = ['./server', './pages', './components', './composables', './plugins', './layouts', './utils', './middleware', './app.vue', './error.vue']

export default createConfigForNuxt(
  {
    features: {
      typescript: true,
      // formatting is left to the code as written; the stylistic preset would rewrite most files
      stylistic: false,
      // eslint-plugin-regexp's checks (its recommended set, narrowed in project/regexp below)
      tooling: { jsdoc: false, unicorn: false, regexp: true },
    },
    // the gateway at the root, and the example Nuxt app (its pages are routes: one-word names)
    dirs: { src: ['.', 'examples/nuxt-app'] },
  },
  {
    name: 'project/ignores',
    // .gitignore is read too; these are build output and artefacts it does not list
    ignores: ['**/.nuxt/**', '**/.output/**', '**/.nitro/**', 'examples/*/.nuxt/**', 'examples/*/.output/**', 'test-results/**', 'docs/screenshots/**'],
  },
  {
    name: 'project/rules',
    rules: {
      // the templates write void elements as `<input />` throughout; both spellings are valid HTML
      'vue/html-self-closing': 'off',
      // optional props typed with defineProps<...>() are undefined when left out, which the
      // components check for; a default would only restate it
      'vue/require-default-prop': 'off',
      // clearing one field's error from a record of field errors (`delete errors[key]`) is the intent
      '@typescript-eslint/no-dynamic-delete': 'off',
    },
  },
  {
    name: 'project/regexp',
    // A pattern is run on what a caller sent, on the only thread of its process: what could make it
    // backtrack (two quantifiers that can trade characters, an alternative that repeats another) or
    // never match as written stays an error. The rules that only restyle a pattern (`\w` for
    // `[A-Za-z0-9_]`, an `i` flag for both cases, a group left capturing) are off: the patterns
    // read as their specifications write them.
    rules: {
      'regexp/prefer-w': 'off',
      'regexp/prefer-d': 'off',
      'regexp/use-ignore-case': 'off',
      'regexp/no-unused-capturing-group': 'off',
      'regexp/no-useless-character-class': 'off',
      'regexp/control-character-escape': 'off',
      'regexp/negation': 'off',
      'regexp/prefer-character-class': 'off',
      'regexp/optimal-quantifier-concatenation': 'off',
      'regexp/no-dupe-characters-character-class': 'off',
    },
  },
  {
    name: 'project/javascript',
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    // plain JavaScript (bench/, scripts/) follows the TypeScript rule: `_name` is deliberately unused
    // (dropping keys with a rest destructuring)
    rules: { 'no-unused-vars': ['error', { varsIgnorePattern: '^_', argsIgnorePattern: '^_' }] },
  },
  {
    name: 'project/migrations',
    files: ['iam/db/migrations/**'],
    // a migration runs against the schema of its own time, not the typed one: Kysely<any>
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    name: 'project/tests',
    files: ['tests/**'],
    // tests type the awaited results of Promise.all and callbacks that may return nothing with void
    rules: { '@typescript-eslint/no-invalid-void-type': 'off' },
  },
  {
    name: 'project/gateway-aliases',
    files: ['{server,pages,components,composables,plugins,layouts,utils,middleware}/**', 'app.vue', 'error.vue'],
    // Nuxt's path aliases are not resolved by the boundary check below: the same rule, by name
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(~~?|@@?)/iam/(?!client/|contract/)', message: 'The gateway may import from iam/ only iam/client and iam/contract.' }] }],
    },
  },
  {
    name: 'project/public-apis',
    // Dependencies are used only through what they publish (docs/architecture.md, Public APIs only;
    // the rules are in scripts/lint/public-api.mjs): no import of a path a package does not export,
    // no member named `_x`. `_csrf` is our own form field (server/middleware/20.csrf.ts).
    plugins: { 'public-api': publicApi },
    rules: {
      'public-api/no-private-package-path': 'error',
      'public-api/no-underscore-member': ['error', { allow: ['_csrf'] }],
    },
  },
  {
    name: 'project/boundaries',
    // the boundaries compare resolved files: imports are written without extensions
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.mts', '.d.ts', '.js', '.mjs', '.vue', '.json'] })],
      // the files import-x reads to follow imports (no-cycle): without the TypeScript ones it
      // follows nothing here. Vue components are left out: their <script> is not plain TypeScript
      'import-x/extensions': ['.ts', '.mts', '.js', '.mjs'],
    },
    rules: {
      // no import cycle: a module must not load a module that loads it back (the second sees the
      // first half-initialised, and the layers above could no longer be told apart). Type-only
      // imports are erased and do not count
      'import/no-cycle': ['error', { ignoreExternal: true }],
      'import/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            // IAM layers: routes, middleware, plugins -> http -> features -> db -> fast -> lib
            { target: ['./iam/lib', './iam/db'], from: ['./iam/features', './iam/http', './iam/routes', './iam/middleware', './iam/plugins'], message: 'iam/lib and iam/db are the bottom IAM layers: they may not import features, http, routes, middleware or plugins.' },
            { target: './iam/lib', from: ['./iam/db', './iam/fast'], message: 'iam/lib is the bottom IAM layer: it may not import iam/db or iam/fast.' },
            // the hand-made fast paths (docs/performance.md): anything above lib may use them; they
            // stand on lib and the table types, and what they need of a feature is handed in
            { target: './iam/fast', from: './iam', except: ['./fast', './lib', './db/schema.ts'], message: 'iam/fast may import only iam/lib, the table types (iam/db/schema.ts) and itself: what a fast path needs of a feature is passed to it.' },
            { target: './iam/features', from: ['./iam/http', './iam/routes', './iam/middleware', './iam/plugins'], message: 'iam/features may not import iam/http, iam/routes, iam/middleware or iam/plugins.' },
            // the sessions feature does not know the OpenID Provider: the provider reacts to sessions
            // ending through the context's session hooks (iam/features/sessions/session-hooks.ts)
            { target: './iam/features/sessions', from: './iam/features/oidc', message: 'iam/features/sessions may not import iam/features/oidc: register a listener on ctx.sessionHooks instead.' },
            { target: './iam/http', from: ['./iam/routes', './iam/middleware', './iam/plugins'], message: 'iam/http may not import iam/routes, iam/middleware or iam/plugins.' },
            // the contract is the bottom layer both apps share: zod and itself only
            { target: './iam/contract', from: '.', except: ['./iam/contract', './node_modules/zod'], message: 'iam/contract may import only zod and other iam/contract files.' },
            // the IAM client runs in the gateway: the contract, itself, undici and Node built-ins
            { target: './iam/client', from: '.', except: ['./iam/client', './iam/contract', './node_modules/undici'], message: 'iam/client may import only iam/contract, iam/client, undici (its HTTP client) and Node built-ins.' },
            // the IAM is its own service: nothing of the gateway
            { target: './iam', from: GATEWAY, message: 'The IAM may not import the gateway (server/ or the Nuxt app).' },
            // the gateway reaches the IAM over HTTP: only the client and the contract
            { target: GATEWAY, from: './iam', except: ['./client', './contract'], message: 'The gateway may import from iam/ only iam/client and iam/contract.' },
            // code both apps run: packages and itself only
            { target: './shared', from: ['./iam', ...GATEWAY], message: 'shared/ is used by both apps: it may not import either of them.' },
          ],
        },
      ],
    },
  },
)
