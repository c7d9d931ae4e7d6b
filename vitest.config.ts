import { defineVitestProject } from '@nuxt/test-utils/config'
import { defineConfig } from 'vitest/config'

// Five projects: unit (pure), iam (the built IAM over HTTP), gateway (the built Nuxt app against
// a real OIDC provider, started by @nuxt/test-utils), e2e (Chromium), components (the pages in the
// Nuxt environment). `npm test` runs all but e2e.
// components: the pages mounted with mountSuspended in the Nuxt environment (happy-dom). Its config
// comes from loading Nuxt (seconds), so it is made only when that project runs (no --project named,
// or --project components): `vitest run --project iam ...` stays as fast as before.
const namedProjects = process.argv.flatMap((arg, i, argv) => (arg === '--project' ? [argv[i + 1]] : arg.startsWith('--project=') ? [arg.slice(10)] : []))
const components =
  namedProjects.length === 0 || namedProjects.includes('components')
    ? [
        await defineVitestProject({
          test: {
            name: 'components',
            include: ['tests/components/**/*.test.ts'],
            environment: 'nuxt',
            // its own build dir: the templates it writes stay out of `nuxt prepare`'s .nuxt
            environmentOptions: { nuxt: { domEnvironment: 'happy-dom', overrides: { buildDir: '.nuxt-components' } } },
          },
        }),
      ]
    : []

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'iam',
          include: ['tests/iam/**/*.test.ts'],
          environment: 'node',
          // files with the default config share one IAM (shared-iam.ts); the others start their own
          globalSetup: ['tests/helpers/build-iam.ts', 'tests/helpers/pglite-template.ts', 'tests/helpers/shared-iam.ts'],
          testTimeout: 30_000,
          hookTimeout: 180_000,
          // two cores here
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'gateway',
          include: ['tests/gateway/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/build-iam.ts', 'tests/helpers/build-gateway.ts', 'tests/helpers/pglite-template.ts'],
          testTimeout: 30_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/helpers/build-iam.ts', 'tests/helpers/build-gateway.ts', 'tests/helpers/pglite-template.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          maxWorkers: 1,
        },
      },
      ...components,
    ],
  },
})
