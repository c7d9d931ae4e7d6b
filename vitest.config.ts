import { defineVitestProject } from '@nuxt/test-utils/config'
import { defineConfig } from 'vitest/config'
import LongestFirstSequencer from './tests/helpers/sequencer'

// One worker count for the projects of `npm test`: vitest runs projects with equal maxWorkers as
// one pool, while a project on 1 worker goes to a queue run one file at a time after all the
// others (minutes of a loaded run). The files mostly wait on
// the servers they start, so more workers than the 2 cores here.
const WORKERS = 3
// Titles made by describe.each carry why a kind is skipped in this run (tests/helpers/skip-notes.ts):
// vitest cuts an interpolated value at 40 characters by default, which cut the reason off
const TITLE_VALUES = 300

// Five projects: unit (pure), iam (the built IAM over HTTP), gateway (the built Nuxt app against
// a real OIDC provider, through @nuxt/test-utils), e2e (Chromium), components (the pages in the
// Nuxt environment). `npm test` runs all but e2e.
// components: the pages mounted with mountSuspended in the Nuxt environment (happy-dom). Its config
// comes from loading Nuxt (seconds), so it is made only when that project runs (no --project named,
// or --project components): `vitest run --project iam ...` does not pay for it.
const namedProjects = process.argv.flatMap((arg, i, argv) => (arg === '--project' ? [argv[i + 1]] : arg.startsWith('--project=') ? [arg.slice(10)] : []))
const components =
  namedProjects.length === 0 || namedProjects.includes('components')
    ? [
        await defineVitestProject({
          test: {
            name: 'components',
            include: ['tests/components/**/*.test.ts'],
            environment: 'nuxt',
            maxWorkers: WORKERS,
            // a file's first mount loads the page's whole module graph: seconds on a loaded 2-core runner
            testTimeout: 30_000,
            // its own build dir: the templates it writes stay out of `nuxt prepare`'s .nuxt
            environmentOptions: { nuxt: { domEnvironment: 'happy-dom', overrides: { buildDir: '.nuxt-components' } } },
          },
        }),
      ]
    : []

export default defineConfig({
  test: {
    // longest file first over all projects, not project by project (tests/helpers/sequencer.ts)
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          taskTitleValueFormatTruncate: TITLE_VALUES,
          include: ['tests/unit/**/*.test.ts'],
          environment: 'node',
          // the migrated PGlite dump, for the files that need a migrated database (createMigratedDatabase)
          globalSetup: ['tests/helpers/compile-cache.ts', 'tests/helpers/pglite-template.ts'],
          maxWorkers: WORKERS,
          // Its files share no module state they change (no mocks, stubs or env writes), so they
          // reuse workers instead of spawning one per file, which takes about a third of this
          // project's time (green on PostgreSQL + Redis with the files shuffled too).
          isolate: false,
          // a first use that loads a big module (the disposable-domain lists) took over vitest's
          // 5 s default on a loaded box; the other projects allow 30 s too
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'iam',
          taskTitleValueFormatTruncate: TITLE_VALUES,
          include: ['tests/iam/**/*.test.ts'],
          environment: 'node',
          // files with the default config share one IAM (shared-iam.ts); the others start their own
          globalSetup: ['tests/helpers/compile-cache.ts', 'tests/helpers/server-starts.ts', 'tests/helpers/build-iam.ts', 'tests/helpers/pglite-template.ts', 'tests/helpers/shared-iam.ts'],
          testTimeout: 30_000,
          hookTimeout: 180_000,
          maxWorkers: WORKERS,
          // as unit: its files share no module state they change (no mocks, stubs or env writes;
          // each starts or borrows its servers in its own hooks), so workers are reused, not
          // spawned per file (~1 s each plus the helpers' imports, 64 files)
          isolate: false,
        },
      },
      {
        test: {
          name: 'gateway',
          taskTitleValueFormatTruncate: TITLE_VALUES,
          include: ['tests/gateway/**/*.test.ts'],
          environment: 'node',
          // the files whose stack needs no IAM config of its own share one IAM (shared-bff-iam.ts)
          globalSetup: [
            'tests/helpers/compile-cache.ts',
            'tests/helpers/server-starts.ts',
            'tests/helpers/build-iam.ts',
            'tests/helpers/build-gateway.ts',
            'tests/helpers/pglite-template.ts',
            'tests/helpers/shared-bff-iam.ts',
          ],
          testTimeout: 30_000,
          hookTimeout: 180_000,
          maxWorkers: WORKERS,
          // as unit and iam: no file mocks, stubs or writes the environment; each starts or borrows
          // its servers in its own hooks (the three on @nuxt/test-utils' setup() make their own test
          // context in theirs), so workers are reused instead of spawned per file (56 files, twice in CI)
          isolate: false,
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
          // two files at once: a browser test mostly waits (on Chromium, on its servers, on polls),
          // so one file at a time left a core idle for most of the run; every file starts its own
          // stack on ports chosen free (auth-stack.ts freePort) and writes its own screenshots
          maxWorkers: 2,
        },
      },
      ...components,
    ],
  },
})
