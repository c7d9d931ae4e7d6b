/**
 * session_families.anomaly_until (see docs/performance.md): set, before the anomaly itself is stored, when a
 * session is put on adaptive MFA; until then full authentication may skip the shared-storage
 * lookup of a cached anomaly, since the family row it reads anyway says none can exist.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').addColumn('anomaly_until', 'timestamptz').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('session_families').dropColumn('anomaly_until').execute()
}
