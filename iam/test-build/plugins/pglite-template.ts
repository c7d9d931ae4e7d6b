/**
 * Test build only: IAM_TEST_PGLITE_TEMPLATE names a dump of a migrated PGlite (made once per test
 * run, tests/helpers/pglite-template.ts); an in-memory database starts from it instead of running
 * initdb and every migration at each of the suite's many IAM starts.
 */
import { readFileSync } from 'node:fs'
import { defineNitroPlugin } from 'nitropack/runtime'
import { replaceMemoryTemplate } from '../../db/database'

export default defineNitroPlugin(() => {
  const path = process.env['IAM_TEST_PGLITE_TEMPLATE']
  if (path && process.env['NODE_ENV'] !== 'production') replaceMemoryTemplate(() => new Blob([readFileSync(path)]))
})
