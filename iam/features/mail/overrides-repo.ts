/**
 * An administrator's own words for a mail in one language (mail_template_overrides, migration
 * 0014): SQL only. The texts were checked before they were stored (override-rules.ts).
 */
import type { Kysely } from 'kysely'
import type { Locale } from '../../contract/locales'
import type { Database } from '../../db/schema'
import type { MailKind } from './catalogue/catalogues'

export interface MailOverride {
  kind: MailKind
  locale: Locale
  texts: Record<string, string>
  updatedAt: Date
}

/** The stored words of one mail in one language, or null. */
export async function findMailOverride(db: Kysely<Database>, kind: MailKind, locale: Locale): Promise<MailOverride | null> {
  const row = await db.selectFrom('mail_template_overrides').select(['texts', 'updated_at']).where('kind', '=', kind).where('locale', '=', locale).executeTakeFirst()
  return row ? { kind, locale, texts: row.texts, updatedAt: row.updated_at } : null
}

/** Stores (or replaces) the words of one mail in one language; one statement. */
export async function saveMailOverride(
  db: Kysely<Database>,
  input: { kind: MailKind; locale: Locale; texts: Record<string, string>; updatedBy: string | null; at: Date },
): Promise<void> {
  await db
    .insertInto('mail_template_overrides')
    .values({ kind: input.kind, locale: input.locale, texts: JSON.stringify(input.texts), updated_by: input.updatedBy, updated_at: input.at })
    .onConflict((oc) => oc.columns(['kind', 'locale']).doUpdateSet({ texts: JSON.stringify(input.texts), updated_by: input.updatedBy, updated_at: input.at }))
    .execute()
}

/** Removes the words of one mail in one language: the catalogue's words apply again. True when there were some. */
export async function deleteMailOverride(db: Kysely<Database>, kind: MailKind, locale: Locale): Promise<boolean> {
  const result = await db.deleteFrom('mail_template_overrides').where('kind', '=', kind).where('locale', '=', locale).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
