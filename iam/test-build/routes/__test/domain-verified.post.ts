import { defineEventHandler } from 'h3'
import { sql } from 'kysely'
import { z } from 'zod'
import { useIam } from '../../../context'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z.strictObject({ orgId: z.string(), domain: z.string() })

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): marks a domain an organization added as verified,
 * as a TXT record found by POST /orgs/:orgId/domains/verify would, for tests whose IAM has no DNS
 * server of theirs to publish the record on (the gateway project's shared IAM). The DNS path itself
 * is tests/iam/enterprise-sso.test.ts's.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const ctx = useIam()
  const done = await ctx.db
    .updateTable('org_domains')
    .set({ verified_at: new Date(ctx.now()) })
    .where('domain', '=', body.data.domain)
    .where('org_id', '=', (eb) => eb.selectFrom('organizations').select('id').where(sql<boolean>`public_id::text = ${body.data.orgId}`))
    .returning('id')
    .executeTakeFirst()
  if (!done) httpFail(404, { ok: false, reason: 'no such domain of that organization', code: 'not_found' })
  return { ok: true }
})
