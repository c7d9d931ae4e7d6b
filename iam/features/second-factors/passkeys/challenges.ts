/**
 * Passkey challenges: 32 random bytes from @simplewebauthn/server's options, stored as SHA-256 only,
 * bound to the device (and for registration to the account), living passkeys.challengeTtlMs, used
 * once. The challenge is taken before the authenticator's answer is checked, so any answer spends
 * it, good or bad, and a replayed answer finds nothing.
 */
import type { IamContext } from '../../../context'
import type { PasskeyChallengesTable } from '../../../db/schema'
import { sha256Hex } from '../../sessions/refresh-token'
import { KEEP_DEAD_CHALLENGES_MS } from './relying-party'
import * as repo from './repository'
import { loadWebAuthnHelpers } from './webauthn'

type Purpose = PasskeyChallengesTable['purpose']

export async function storeChallenge(
  ctx: IamContext,
  input: { challenge: string; purpose: Purpose; userId: number | null; visitorRowId: number; userHandle?: string },
): Promise<void> {
  const now = ctx.now()
  await repo.deleteExpiredChallenges(ctx.db, new Date(now - KEEP_DEAD_CHALLENGES_MS))
  if (input.purpose === 'register' && input.userId !== null) await repo.deleteRegistrationChallenges(ctx.db, input.userId)
  await repo.insertChallenge(ctx.db, {
    challenge_hash: sha256Hex(input.challenge),
    purpose: input.purpose,
    user_id: input.userId,
    visitor_id: input.visitorRowId,
    user_handle: input.userHandle ?? null,
    created_at: new Date(now),
    expires_at: new Date(now + ctx.config.passkeys.challengeTtlMs),
  })
}

/** The challenge the browser signed over, or null when the client data is not readable. */
export async function challengeOfClientData(clientDataJSON: string): Promise<string | null> {
  const { decodeClientDataJSON } = await loadWebAuthnHelpers()
  try {
    const { challenge } = decodeClientDataJSON(clientDataJSON)
    return typeof challenge === 'string' && /^[A-Za-z0-9_-]{16,128}$/.test(challenge) ? challenge : null
  } catch {
    return null
  }
}

/**
 * Takes the challenge named in `clientDataJSON`; returns it (with the user handle a registration
 * named) when it was live and issued to this device (and account).
 */
export async function takeChallengeOf(
  ctx: IamContext,
  input: { clientDataJSON: string; purpose: Purpose; userId: number | null; visitorRowId: number },
): Promise<{ challenge: string; userHandle: string | null } | null> {
  const challenge = await challengeOfClientData(input.clientDataJSON)
  if (!challenge) return null
  const taken = await repo.takeChallenge(ctx.db, {
    hash: sha256Hex(challenge),
    purpose: input.purpose,
    visitorRowId: input.visitorRowId,
    userId: input.userId,
    now: new Date(ctx.now()),
  })
  return taken ? { challenge, userHandle: taken.user_handle } : null
}
