/**
 * What a passed adaptive MFA does to the session: the anomaly is resolved, the current
 * device, IP and fingerprint are bound to the family, last_mfa_at is set and a new token pair is
 * issued in the same family. Called by the MFA verification route (iam/features/mfa).
 */
import type { IamContext } from '../../context'
import { reissueAfterMfa, type TokenPair } from '../sessions/session-service'
import { resolveFamilyAnomaly } from '../anomalies/anomaly-store'

export async function completeMfa(
  ctx: IamContext,
  input: { familyId: string; visitorRowId: number; ipAddress: string; fingerprint: Record<string, unknown> | null },
): Promise<TokenPair | null> {
  const pair = await reissueAfterMfa(ctx, input)
  // resolved either way: a dead family has nothing left to challenge
  await resolveFamilyAnomaly(ctx.store, input.familyId)
  return pair
}
