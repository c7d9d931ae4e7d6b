import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { useIam } from '../../../context'
import { setPlatformAdmin } from '../../../features/admin/platform-admins'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z.strictObject({ email: z.string(), admin: z.boolean() })

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): grants or revokes the platform administrator role
 * as `users:grant-admin` / `users:revoke-admin` do, for tests whose embedded database the CLI cannot
 * open while the IAM holds it.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const result = await setPlatformAdmin(useIam(), { ...body.data, by: 'admin-cli' })
  if (!result.ok) httpFail(404, { ok: false, reason: 'no such account', code: 'user_not_found' })
  return result
})
