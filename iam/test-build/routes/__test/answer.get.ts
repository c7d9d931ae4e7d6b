import { defineEventHandler, getQuery, setResponseStatus } from 'h3'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/**
 * Test-only: answers `?status=N` with `{ error, code }`, `code` as given and left out when the
 * query has none, so a test can prove the test build refuses a failure whose code no route could
 * declare (iam/test-build/plugins/declared-codes.ts). Not through httpFail, whose type allows only
 * the vocabulary's codes: exactly the slip a route returning its own body could make.
 */
export default defineEventHandler((event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const query = getQuery(event)
  const status = Number(query.status)
  setResponseStatus(event, Number.isInteger(status) && status >= 200 && status < 600 ? status : 400)
  return { error: 'A test answer', ...(typeof query.code === 'string' ? { code: query.code } : {}) }
})
