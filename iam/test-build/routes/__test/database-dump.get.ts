import { defineEventHandler, setResponseHeader } from 'h3'
import { useIam } from '../../../context'
import { dumpEmbeddedDatabase } from '../../../db/database'
import { httpFail, notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): the embedded database as it is now, as the
 * tarball an in-memory PGlite starts from (IAM_TEST_PGLITE_TEMPLATE, plugins/pglite-template.ts),
 * so a second IAM on PGlite can answer from the same rows as the first
 * (tests/gateway/introspection-equivalence.test.ts). On PostgreSQL a second IAM shares the database
 * itself: 409.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const dump = await dumpEmbeddedDatabase(useIam().db)
  if (!dump) httpFail(409, { ok: false, reason: 'not an embedded database: share it instead', code: 'bad_request' })
  setResponseHeader(event, 'content-type', 'application/x-tar')
  return new Uint8Array(await dump.arrayBuffer())
})
