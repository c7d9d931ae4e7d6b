/**
 * The account's picture (features/users/profile-picture.ts, docs/accounts.md "Profile picture"):
 * users.picture_source says which picture the person chose (none, an upload, or their Gravatar),
 * and user_pictures holds the uploaded image itself, one row per account. The bytes live in
 * PostgreSQL rather than on disk so every instance serves the same picture, backups carry it and
 * the account's deletion removes it with the account (ON DELETE CASCADE), like every other row of
 * the person's data.
 *
 * The checks repeat the application's: only the three types it accepts by their magic bytes, a
 * SHA-256 hex digest (the ETag), and at most 8 MiB, the ceiling of the configurable cap
 * (profilePicture.maxBytes in iam/lib/config-schema.ts).
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('picture_source', 'text', (c) => c.notNull().defaultTo('none').check(sql`picture_source in ('none', 'upload', 'gravatar')`))
    .execute()
  await db.schema
    .createTable('user_pictures')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull().check(sql`content_type in ('image/png', 'image/jpeg', 'image/webp')`))
    .addColumn('bytes', 'bytea', (c) => c.notNull().check(sql`octet_length(bytes) between 1 and 8388608`))
    .addColumn('sha256', 'text', (c) => c.notNull().check(sql`sha256 ~ '^[0-9a-f]{64}$'`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('user_pictures').execute()
  await db.schema.alterTable('users').dropColumn('picture_source').execute()
}
