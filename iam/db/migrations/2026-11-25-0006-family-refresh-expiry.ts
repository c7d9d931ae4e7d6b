/**
 * session_families.refresh_expires_at (see docs/performance.md): the expiry of the family's active refresh token,
 * null when it has none. Every signed-in request and every refresh counts the user's live sessions
 * (anomaly check 5: not revoked, an active token not yet expired); with this column the count reads
 * only session_families instead of probing refresh_tokens once per family, where every rotation
 * leaves the index entry of a just-spent version behind (~2.3 ms of PostgreSQL CPU per rotation in
 * the bench, whose user holds ~100 families). Written by the statements that change a family's
 * active token: sign-in, rotation, re-issue after MFA or a password change, revocation.
 *
 * Not indexed on purpose: every rotation moves it, and an update that touches no indexed column can
 * stay a heap-only (HOT) update, which adds no index entries.
 */
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').addColumn('refresh_expires_at', 'timestamptz').execute()
  await sql`
    update session_families f set refresh_expires_at = t.expires_at
    from refresh_tokens t where t.family_id = f.id and t.status = 'active'
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').dropColumn('refresh_expires_at').execute()
}
