/** The language of a mail about an account, where the account's row is not at hand. */
import type { Kysely, Transaction } from 'kysely'
import { chooseLocale, type Locale } from '../../contract/locales'
import type { Database } from '../../db/schema'

/** The owner's chosen language (users.locale), else the request's, else English; one primary-key probe. */
export async function mailLocaleOf(db: Kysely<Database> | Transaction<Database>, userId: number, requestLocale?: Locale): Promise<Locale> {
  const row = await db.selectFrom('users').select('locale').where('id', '=', userId).executeTakeFirst()
  return chooseLocale(row?.locale, requestLocale)
}
