/**
 * The account's picture (features/users/profile-picture.ts, docs/accounts.md "Profile picture"):
 * user_picture_sources says which picture the person chose (an upload or their Gravatar; no row:
 * none), and user_pictures holds the uploaded image itself, one row per account.
 *
 * Both are tables of their own, not columns of users: the release before this one reads users with
 * `returning *` inside its sign-up transaction on named prepared statements, and a column added to
 * users changes that result, which PostgreSQL refuses for a statement already prepared (SQLSTATE
 * 0A000) and which a transaction cannot retry; a new table changes nothing that release reads, so
 * it keeps answering while this one is rolled out (docs/operations.md, "Rolling upgrades"). The bytes live in
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
    .createTable('user_picture_sources')
    .addColumn('user_id', 'integer', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('upload', 'gravatar')`))
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
  await db.schema.dropTable('user_picture_sources').execute()
}
