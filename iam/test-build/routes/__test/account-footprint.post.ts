import { defineEventHandler } from 'h3'
import { sql } from 'kysely'
import { z } from 'zod'
import { useIam } from '../../../context'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z.union([z.strictObject({ email: z.string() }), z.strictObject({ userId: z.number().int().positive(), publicId: z.string().optional() })])

/** The tables that hold rows of an account by user_id. */
const OWNED = ['session_families', 'api_tokens', 'oauth_identities', 'magic_links', 'mfa_codes', 'totp_factors', 'recovery_codes', 'passkeys', 'memberships', 'user_pictures'] as const

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): what the database still holds of an account (by
 * address, or by its serial id once the row is gone), for the purge tests: row counts per table,
 * its OpenID Provider artefacts, the invitations it sent and its security events as stored.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const { db } = useIam()
  const user =
    'email' in body.data
      ? await db.selectFrom('users').select(['id', sql<string>`public_id::text`.as('public_id'), 'deletion_due_at']).where(sql`lower(email)`, '=', body.data.email.toLowerCase()).executeTakeFirst()
      : await db.selectFrom('users').select(['id', sql<string>`public_id::text`.as('public_id'), 'deletion_due_at']).where('id', '=', body.data.userId).executeTakeFirst()
  const userId = 'userId' in body.data ? body.data.userId : user?.id
  if (userId === undefined) return { user: null }
  const rows: Record<string, number> = {}
  for (const table of OWNED) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow()
    rows[table] = Number(row.n)
  }
  const invitations = await db.selectFrom('invitations').select((eb) => eb.fn.countAll<string>().as('n')).where('invited_by', '=', userId).executeTakeFirstOrThrow()
  rows.invitations = Number(invitations.n)
  const publicId = user?.public_id ?? ('publicId' in body.data ? body.data.publicId : undefined)
  if (publicId) {
    const grants = await db.selectFrom('oidc_payloads').select((eb) => eb.fn.countAll<string>().as('n')).where('account_id', '=', publicId).executeTakeFirstOrThrow()
    rows.oidc_payloads = Number(grants.n)
  }
  const events = await db.selectFrom('security_events').select(['type', 'user_id', 'visitor_id', 'ip_address', 'details']).where('user_id', '=', userId).orderBy('id').execute()
  return { user: user ? { id: user.id, publicId: user.public_id, deletionDueAt: user.deletion_due_at } : null, userId, rows, events }
})
