import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { useIam } from '../../../context'
import { purgeDueAccounts } from '../../../features/account-deletion/purge'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z.strictObject({ runs: z.number().int().min(1).max(8) })

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): runs the purge of the timer and `users:purge`
 * `runs` times at once on the IAM's clock, for tests of its one-winner rule on the same database.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const ctx = useIam()
  const results = await Promise.all(Array.from({ length: body.data.runs }, () => purgeDueAccounts(ctx.db, new Date(ctx.now()))))
  return { purged: results.map((r) => r.purged) }
})
