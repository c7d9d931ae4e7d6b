/**
 * Languages (iam/contract/locales.ts, docs/i18n.md "Mails").
 *
 * users.locale: the language the account's owner chose (POST /auth/profile), one of the supported
 * codes; null until chosen, and then the mails follow the request's Accept-Language. The check
 * repeats the supported list as it stands at this migration: a later language widens it in a
 * migration of its own.
 *
 * mail_template_overrides: a platform administrator's own words for one mail in one language
 * (PUT /admin/mail-templates/:kind/:locale): `texts` maps a catalogue key of that mail (subject,
 * paragraphs, button labels) to plain text with the same named placeholders as the English text.
 * One row per mail and language; a key it lacks keeps the catalogue's words.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('locale', 'text', (c) => c.check(sql`locale in ('en', 'de', 'fr', 'es', 'ja', 'ar')`))
    .execute()
  await db.schema
    .createTable('mail_template_overrides')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('texts', 'jsonb', (c) => c.notNull())
    .addColumn('updated_by', 'uuid')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('mail_template_overrides_pkey', ['kind', 'locale'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mail_template_overrides').execute()
  await db.schema.alterTable('users').dropColumn('locale').execute()
}
