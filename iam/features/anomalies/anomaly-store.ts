/**
 * The active anomaly of a session, kept in shared storage under the SHA-256 of the session cookie
 * for the magic-link lifetime, plus an index by family so a passed MFA can resolve it
 * without the cookie. Every instance sees the same state.
 */
import type { SharedStore } from '../../lib/storage'
import { sha256Hex } from '../sessions/refresh-token'
import type { AnomalyType } from './evaluate-anomalies'

export interface ActiveAnomaly {
  action: 'mfa' | 'relogin'
  type: AnomalyType
  familyId: string
  userId: number
  createdAt: number
}

const byCookie = (cookieHash: string) => `anomaly:session:${cookieHash}`
const byFamily = (familyId: string) => `anomaly:family:${familyId}`

/** The anomaly recorded for this session cookie, if any. */
export function getActiveAnomaly(store: SharedStore, sessionCookie: string): Promise<ActiveAnomaly | null> {
  return store.get<ActiveAnomaly>(byCookie(sha256Hex(sessionCookie)))
}

export async function setActiveAnomaly(store: SharedStore, sessionCookie: string, anomaly: ActiveAnomaly, ttlMs: number): Promise<void> {
  const hash = sha256Hex(sessionCookie)
  await store.set(byCookie(hash), anomaly, ttlMs)
  await store.set(byFamily(anomaly.familyId), hash, ttlMs)
}

/** Forgets the anomaly of this cookie (mail failure: the session must not stay MFA-pending). */
export async function clearAnomalyForCookie(store: SharedStore, sessionCookie: string): Promise<void> {
  await store.delete(byCookie(sha256Hex(sessionCookie)))
}

/** Resolves the anomaly of a family (after a passed MFA, logout or revocation). */
export async function resolveFamilyAnomaly(store: SharedStore, familyId: string): Promise<void> {
  const hash = await store.get<string>(byFamily(familyId))
  if (hash) await store.delete(byCookie(hash))
  await store.delete(byFamily(familyId))
}
