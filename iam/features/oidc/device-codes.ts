/**
 * The bound on a client's live device codes (RFC 8628). Every device authorization request stores a
 * device code and puts one more user code among those a person's guess may hit (section 5.1), and a
 * client that starts them in a loop would otherwise fill both without limit. Past
 * `oidc.deviceFlow.maxLiveCodesPerClient` codes (unexpired, not yet redeemed) the endpoint answers
 * `slow_down` (section 3.5's word for "ask less often"), and the client can start again as its
 * earlier codes are used or expire.
 *
 * Counted after the provider stored the new code (provider.ts, a post-processing middleware): the
 * client has authenticated by then, and a request over the bound removes its own code again.
 * Counting after the insert keeps the bound under concurrent requests: each sees its own code and
 * every one committed before it, so two racing at the bound are both refused, never both let in.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'

/** The client's device codes that are neither expired nor redeemed. */
export async function liveDeviceCodes(db: Kysely<Database>, clientId: string, now: number): Promise<number> {
  const row = await db
    .selectFrom('oidc_payloads')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('model', '=', 'DeviceCode')
    .where(sql`payload->>'clientId'`, '=', clientId)
    .where('consumed_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date(now))]))
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

export const tooManyDeviceCodes = (max: number) => ({
  error: 'slow_down',
  error_description: `this client already has ${max} device codes in progress (oidc.deviceFlow.maxLiveCodesPerClient); try again once some are used or have expired`,
})
