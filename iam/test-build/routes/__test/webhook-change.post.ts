import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { useIam } from '../../../context'
import { recordSecurityEvent } from '../../../features/security-events/repository'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z.strictObject({ email: z.string(), rollback: z.boolean() })

class RolledBack extends Error {}

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): records a `profile_updated` event for the account
 * inside a transaction, as a change does, then commits it or fails after the event was written
 * (`rollback`), for the test that a rolled-back change queues no webhook (features/webhooks/outbox.ts).
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const ctx = useIam()
  const user = await ctx.db.selectFrom('users').select('id').where('email', '=', body.data.email).executeTakeFirst()
  if (!user) httpFail(404, { ok: false, reason: 'no such account', code: 'user_not_found' })
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await recordSecurityEvent(trx, { type: 'profile_updated', userId: user!.id, visitorRowId: null, ipAddress: null, details: { field: 'name' }, at: new Date(ctx.now()) })
      if (body.data.rollback) throw new RolledBack('the change failed after its event was written')
    })
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error
    return { committed: false }
  }
  return { committed: true }
})
