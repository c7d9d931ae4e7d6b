import { defineNitroConfig } from 'nitropack/config'

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
  // No Nitro storage, no auto-imports: features take dependencies as arguments.
  imports: false,
  experimental: { tasks: false },
  typescript: { strict: true },
  // IAM_OUTPUT_DIR / IAM_BUILD_DIR: separate builds side by side (parallel work trees, benchmarks).
  output: { dir: process.env.IAM_OUTPUT_DIR || '.output' },
  buildDir: process.env.IAM_BUILD_DIR || '.nitro',
  // PGlite loads its WASM and data files relative to its own module: keep it a real package.
  externals: { external: ['@electric-sql/pglite', '@node-rs/argon2'] },
})
