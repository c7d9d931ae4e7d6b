/**
 * Unlinking a sign-in provider from an account: every identity of that provider goes,
 * but only while another way in remains (a password, a passkey, or another linked provider); the
 * last way in is never removed, or the account would be locked for good.
 *
 * The check and the delete run in one transaction holding the account row's lock, so two parallel
 * unlinks of an account's two providers cannot both see "the other one remains" and both succeed.
 */
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { sendSecondFactorNotice } from '../second-factors/notice'
import { recordUserAction } from '../security-events/repository'

export type UnlinkProviderResult = { ok: true } | { ok: false; code: 'not_linked' | 'last_way_in' | 'session_ended' }

export async function unlinkProvider(ctx: IamContext, input: { userId: number; provider: string; actor: Actor }): Promise<UnlinkProviderResult> {
  const now = new Date(ctx.now())
  const result = await ctx.db.transaction().execute(async (trx): Promise<UnlinkProviderResult> => {
    const user = await trx.selectFrom('users').select(['id', 'password_hash']).where('id', '=', input.userId).forUpdate().executeTakeFirst()
    if (!user) return { ok: false, code: 'session_ended' }
    const providers = await trx.selectFrom('oauth_identities').select('provider').distinct().where('user_id', '=', user.id).execute()
    if (!providers.some((p) => p.provider === input.provider)) return { ok: false, code: 'not_linked' }
    const otherProviders = providers.filter((p) => p.provider !== input.provider).length
    if (!user.password_hash && otherProviders === 0) {
      const passkey = await trx.selectFrom('passkeys').select('id').where('user_id', '=', user.id).limit(1).executeTakeFirst()
      if (!passkey) return { ok: false, code: 'last_way_in' }
    }
    await trx.deleteFrom('oauth_identities').where('user_id', '=', user.id).where('provider', '=', input.provider).execute()
    await recordUserAction(trx, 'provider_unlinked', { userId: user.id, actor: input.actor, details: { provider: input.provider }, at: now })
    return { ok: true }
  })
  if (result.ok) sendSecondFactorNotice(ctx, { userId: input.userId, change: 'provider_unlinked', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return result
}
