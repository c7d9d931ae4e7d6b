import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { advanceTestClock } from '../../clock'
import { testRoutesEnabled } from '../../enabled'

// forward only, at most a year per call: enough for any lifetime in the config
const Body = z.object({ advanceMs: z.number().int().min(0).max(366 * 24 * 3600 * 1000) }).strict()

/** Test-only (IAM_TEST_ROUTES=1, not production): moves the IAM's clock forward; answers the new time. */
export default defineEventHandler((event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: 'advanceMs must be an integer of ms, 0 to one year', code: 'validation_failed' })
  return { now: advanceTestClock(body.data.advanceMs) }
})
