import { defineEventHandler, getQuery } from 'h3'
import { sql } from 'kysely'
import { useIam } from '../../../context'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): the webhook rows no route shows: the endpoints of
 * the organization `?org=` (its public id), and the deliveries and attempts whose endpoint is gone,
 * for the test that an organization's deletion takes its endpoints' logs with them
 * (features/webhooks/endpoints-repo.ts deleteOrganizationEndpoints).
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const org = String(getQuery(event).org ?? '')
  const { rows } = await sql<{ endpoints: number; orphanDeliveries: number; orphanAttempts: number }>`select
    (select count(*)::int from webhook_endpoints where organization_id::text = ${org}) as endpoints,
    (select count(*)::int from webhook_deliveries d where not exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id)) as "orphanDeliveries",
    (select count(*)::int from webhook_attempts a where not exists (select 1 from webhook_endpoints e where e.id = a.endpoint_id)) as "orphanAttempts"`.execute(useIam().db)
  return rows[0]
})
