/** The account's own profile: the name shown on the account page and in the header, and the language of its mails. */
import type { Locale } from '../../contract/locales'
import { isLocale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { recordSecurityEvent } from '../security-events/repository'

export interface ProfileView {
  name: string
  /** null: not chosen (mails follow the request's language) */
  locale: Locale | null
}

/**
 * Stores the new name and/or language and records each changed field in the account's security
 * activity in one transaction, so the activity list never misses a change nor shows one that did
 * not happen. The details keep no name: the activity list is a record of what happened, not a
 * copy of personal data. `undefined` leaves a field as it is; a null language forgets the choice.
 */
export async function updateProfile(
  ctx: IamContext,
  input: { userId: number; actor: Actor; name?: string | undefined; locale?: Locale | null | undefined },
): Promise<ProfileView> {
  const at = new Date(ctx.now())
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
  }
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx.updateTable('users').set({ ...changes, updated_at: at }).where('id', '=', input.userId).returning(['name', 'locale']).executeTakeFirstOrThrow()
    for (const field of Object.keys(changes)) {
      await recordSecurityEvent(trx, { type: 'profile_updated', userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { field }, at })
    }
    return updated
  })
  return { name: row.name, locale: isLocale(row.locale) ? row.locale : null }
}
