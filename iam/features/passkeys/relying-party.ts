/**
 * The WebAuthn relying party this IAM answers for, from config (passkeys.*). The rpID is the
 * gateway's host name: browsers refuse IP addresses as rpID, so a deployment reached at
 * 127.0.0.1 cannot use passkeys; the dev profile uses `localhost`.
 */
import type { IamContext } from '../../context'

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
