/**
 * POST /api/admin/impersonation/end: the session on the account's behalf ends (recorded on both
 * accounts by the IAM) and the administrator's own session comes back (server/utils/bff/impersonation.ts).
 * `{ ok: true, data: { restored } }`; restored false: the administrator's session ended meanwhile,
 * and they sign in again.
 */
import { endImpersonation } from '../../../utils/bff/impersonation'
import { defineBffHandler } from '../../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const { restored } = await endImpersonation(event)
  return { ok: true, date: new Date().toISOString(), data: { restored } }
})
