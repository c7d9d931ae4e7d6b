/**
 * The WebAuthn relying party this IAM answers for, from config (passkeys.*). The rpID is the
 * gateway's host name: browsers refuse IP addresses as rpID, so a deployment reached at
 * 127.0.0.1 cannot use passkeys; the dev profile uses `localhost`.
 */
import type { IamContext } from '../../../context'

export interface RelyingParty {
  rpID: string
  rpName: string
  origins: string[]
}

export function relyingPartyOf(ctx: IamContext): RelyingParty {
  const { rpID, rpName, origins } = ctx.config.passkeys
  return { rpID, rpName: rpName ?? ctx.config.email.siteName, origins }
}

/** Housekeeping horizon: challenges dead this long are deleted when a new one is issued. */
export const KEEP_DEAD_CHALLENGES_MS = 24 * 60 * 60 * 1000

/** What every verification expects of the browser's answer: a configured origin and rpID, the user verified. */
export function expectationsOf(ctx: IamContext) {
  const rp = relyingPartyOf(ctx)
  return { expectedOrigin: rp.origins, expectedRPID: rp.rpID, requireUserVerification: true }
}

/**
 * Runs a @simplewebauthn/server verification, which refuses by throwing. A refusal is logged (the
 * message names the origin or rpID the browser reported, what an operator needs to fix
 * passkeys.*; a challenge it quotes is spent already) and answered as null.
 */
export async function verifiedOrNull<T extends { verified: boolean }>(ctx: IamContext, what: string, verify: () => Promise<T>): Promise<T | null> {
  try {
    const result = await verify()
    return result.verified ? result : null
  } catch (error) {
    ctx.log.info(`passkey ${what} refused`, { reason: (error as Error).message.slice(0, 200) })
    return null
  }
}
