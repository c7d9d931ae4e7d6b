/**
 * The account's own profile: the name shown on the account page and in the header, the language of
 * its mails, and the time zone its mails name their moments in.
 */
import type { Locale } from '../../contract/locales'
import { isLocale } from '../../contract/locales'
import type { IamContext } from '../../context'
import type { Actor } from '../security-events/repository'
import { recordSecurityEvent } from '../security-events/repository'

export interface ProfileView {
  name: string
  /** null: not chosen (mails follow the request's language) */
  locale: Locale | null
  /** the IANA zone of the account's mails (iam/contract/time-zones.ts); null: none known, mails say UTC */
  timeZone: string | null
}

/**
 * Stores the new name, language and/or time zone and records each changed field in the account's
 * security activity in one transaction, so the activity list never misses a change nor shows one
 * that did not happen. The details keep no name: the activity list is a record of what happened,
 * not a copy of personal data. `undefined` leaves a field as it is; a null language forgets the
 * choice. A zone sent here is the owner's choice (time_zone_chosen, migration 0026): a later
 * sign-in's browser zone no longer replaces it; a null zone forgets the choice, so the account's
 * mails say UTC until a sign-in names the browser's zone again (users-repo.ts rememberTimeZone).
 * `timeZone` is already checked (iam/contract/time-zones.ts readTimeZone) and in its runtime spelling.
 */
export async function updateProfile(
  ctx: IamContext,
  input: { userId: number; actor: Actor; name?: string | undefined; locale?: Locale | null | undefined; timeZone?: string | null | undefined },
): Promise<ProfileView> {
  const at = new Date(ctx.now())
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.locale !== undefined ? { locale: input.locale } : {}),
    ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
  }
  const { timeZone, ...columns } = changes
  const row = await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('users')
      .set({ ...columns, ...(timeZone !== undefined ? { time_zone: timeZone, time_zone_chosen: timeZone !== null } : {}), updated_at: at })
      .where('id', '=', input.userId)
      .returning(['name', 'locale', 'time_zone'])
      .executeTakeFirstOrThrow()
    for (const field of Object.keys(changes)) {
      await recordSecurityEvent(trx, { type: 'profile_updated', userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { field }, at })
    }
    return updated
  })
  return { name: row.name, locale: isLocale(row.locale) ? row.locale : null, timeZone: row.time_zone }
}
