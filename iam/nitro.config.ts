import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineNitroConfig } from 'nitropack/config'

// The worker that verifies imported password hashes (features/passwords/hash-pool.ts)
// require()s these at run time and nothing imports them: traced by their CommonJS entries
// (bcryptjs's `require` export is its own build), they are copied to the output's node_modules.
const requireHere = createRequire(import.meta.url)
const IMPORTED_HASH_WORKER_PACKAGES = ['bcryptjs', 'firebase-scrypt'].map((name) => requireHere.resolve(name))

// IAM_TEST_BUILD=1 (the test suite's build, tests/helpers/build-iam.ts): also compiles in
// test-build/ (routes/__test and their request rules). Production bundles never contain them.
const testBuild = process.env.IAM_TEST_BUILD === '1'

// The IAM: a standalone Nitro app (`nitro build --dir iam`). Routes, middleware and plugins are
// file-based; middleware runs in file-name order (00-, 10-, ...).
export default defineNitroConfig({
  compatibilityDate: '2025-11-01',
  srcDir: '.',
  scanDirs: testBuild ? ['test-build'] : [],
  preset: 'node-server',
  errorHandler: '~/error',
  // The IAM serves no files: without this the node-server preset puts a static-file middleware
  // (path decoding and an asset lookup) in front of every request.
  serveStatic: false,
  // No Nitro storage, no auto-imports: features take dependencies as arguments.
  imports: false,
  experimental: { tasks: false },
  typescript: { strict: true },
  // The Node release package.json's engines names: Nitro's own default (es2019) predates BigInt
  // literals, which esbuild then warns may crash, and would down-level syntax Node runs as it is.
  esbuild: { options: { target: 'node22' } },
  // IAM_OUTPUT_DIR / IAM_BUILD_DIR: separate builds side by side (parallel work trees, benchmarks).
  output: { dir: process.env.IAM_OUTPUT_DIR || '.output' },
  buildDir: process.env.IAM_BUILD_DIR || '.nitro',
  // PGlite loads its WASM and data files relative to its own module: keep it a real package.
  externals: { external: ['@electric-sql/pglite', '@node-rs/argon2'], traceInclude: IMPORTED_HASH_WORKER_PACKAGES },
  hooks: {
    // A second entry: the admin CLI (cli/index.ts), built and shipped with the server as
    // server/cli.mjs, so it runs in production with the same code and no TypeScript loader.
    // The plain TypeScript both entries share (lib, fast, db, features, contract, client, the
    // session hooks, and the repository's shared/ that the gateway runs too) goes to its own chunk:
    // left to Rollup it would join the chunk of the Nitro runtime, which starts the server.
    'rollup:before'(_nitro, rollupConfig) {
      rollupConfig.input = { index: rollupConfig.input as string, cli: fileURLToPath(new URL('./cli/index.ts', import.meta.url)) }
      const shared = [
        ...['lib', 'fast', 'db', 'features', 'contract', 'client', '../shared'].map((dir) => fileURLToPath(new URL(`./${dir}/`, import.meta.url))),
        // the session hooks both entries build their context with (plugins/00.boot.ts, cli/context.ts)
        fileURLToPath(new URL('./session-hooks.ts', import.meta.url)),
      ]
      for (const output of [rollupConfig.output ?? []].flat()) {
        output.entryFileNames = '[name].mjs'
        const nitroChunks = output.manualChunks
        output.manualChunks = (id, meta) => {
          // loaded on first use (features/passwords/password-service.ts): its word lists stay out of start-up
          if (id.endsWith('/shared/password-strength.ts')) return 'password-strength'
          // the OpenID Provider (oidc-provider, Koa and their dependencies): loaded by the first
          // /oidc or interaction request, not at start, like the strength estimator
          if (/\/features\/oidc\/(provider|adapter|interactions|pages)\.ts$/.test(id) || id.endsWith('/fast/introspection.ts')) return 'oidc-provider'
          if (shared.some((dir) => id.startsWith(dir))) return 'iam'
          // unstorage (and its destr) serve lib/storage and the Nitro runtime's own storage alike:
          // Rollup gives a module two manual chunks import to whichever reaches it first, which
          // moves with the import graph. In the Nitro runtime's chunk, the shared chunk imports that
          // chunk back, and the CLI, which enters through the shared chunk, runs the runtime's top
          // level before the shared bindings it reads exist ("Cannot access ... before initialization").
          if (/\/node_modules\/(unstorage|destr)\//.test(id)) return 'iam'
          return typeof nitroChunks === 'function' ? nitroChunks(id, meta) : undefined
        }
      }
    },
  },
})
