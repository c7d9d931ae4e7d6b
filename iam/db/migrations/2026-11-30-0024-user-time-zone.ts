/**
 * users.time_zone: the IANA time zone the owner's browser names (iam/contract/time-zones.ts),
 * written at sign-up and at each sign-in from the gateway's X-Time-Zone header, so a mail says its
 * moments in the reader's time (iam/features/mail/format.ts humanDate). Null until a browser sent
 * one the IAM knows: such mails keep saying their moments in UTC.
 *
 * The check bounds the length only: which names are zones is the runtime's time zone database,
 * which grows with Node releases, so the application checks the name before it writes it.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('time_zone', 'text', (c) => c.check(sql`char_length(time_zone) between 1 and 64`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('time_zone').execute()
}
