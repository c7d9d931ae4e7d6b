/**
 * The database side of a cached anomaly (see docs/performance.md): `session_families.anomaly_until` says a cached
 * anomaly of the family may exist in shared storage until then. Full authentication reads the family
 * anyway, so a session that was never put on MFA costs no shared-storage lookup. The marker is
 * written before the anomaly is stored, so any request that could find the anomaly also sees the
 * marker; a marker left after the anomaly is resolved only costs a lookup until it passes.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'

/** Marks the family until `until`; never moves an existing mark earlier. */
export async function markAnomalyUntil(db: Kysely<Database>, familyId: string, until: Date): Promise<void> {
  // greatest() ignores a null, so a first mark is `until`
  await db.updateTable('session_families').set({ anomaly_until: sql<Date>`greatest(anomaly_until, ${until})` }).where('id', '=', familyId).execute()
}

/** True when a cached anomaly of a family with this mark may exist at `now`. */
export function mayHaveAnomaly(anomalyUntil: Date | null, now: number): boolean {
  return anomalyUntil !== null && anomalyUntil.getTime() > now
}
