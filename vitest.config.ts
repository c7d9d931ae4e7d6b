import { defineConfig } from 'vitest/config'

// Four projects: unit (pure), iam (the built IAM over HTTP), gateway (the built Nuxt app against
// a real OIDC provider), e2e (Chromium). `npm test` runs the first three.
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
    ],
  },
})
