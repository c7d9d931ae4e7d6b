/** The language and time zone of a mail about an account, where the account's row is not at hand. */
import type { Kysely, Transaction } from 'kysely'
import { chooseLocale, type Locale } from '../../contract/locales'
import type { Database } from '../../db/schema'

/** The owner's chosen language (users.locale), else the request's, else English; one primary-key probe. */
export async function mailLocaleOf(db: Kysely<Database> | Transaction<Database>, userId: number, requestLocale?: Locale): Promise<Locale> {
  const row = await db.selectFrom('users').select('locale').where('id', '=', userId).executeTakeFirst()
  return chooseLocale(row?.locale, requestLocale)
}

/**
 * The language and the time zone of a mail that names a moment: the owner's (users.locale,
 * users.time_zone), else the request's, else English and UTC (humanDate says UTC when `timeZone`
 * is null); one primary-key probe.
 */
export async function mailReaderOf(
  db: Kysely<Database> | Transaction<Database>,
  userId: number,
  request: { locale?: Locale | undefined; timeZone?: string | null | undefined },
): Promise<{ locale: Locale; timeZone: string | null }> {
  const row = await db.selectFrom('users').select(['locale', 'time_zone']).where('id', '=', userId).executeTakeFirst()
  return { locale: chooseLocale(row?.locale, request.locale), timeZone: row?.time_zone ?? request.timeZone ?? null }
}
