/**
 * Passwordless sign-in with a passkey. The options name no account: they ask
 * for a discoverable credential (empty allowCredentials), so they are the same for every visitor
 * and say nothing about which addresses have passkeys. The assertion names its credential; the
 * account is the credential's. User verification is required, so the passkey is possession and a
 * PIN or biometric at once: no second-factor step follows it, and adaptive MFA guards the session
 * it opens like any other.
 */
import { suspensionOf, type SuspensionView } from '../../users/suspension'
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import { timingSafeEqual } from 'node:crypto'
import type { IamContext } from '../../../context'
import type { Visitor } from '../../../db/schema'
import { recordSecurityEvent } from '../../security-events/repository'
import { createSignInSession, type TokenPair } from '../../sessions/session-service'
import { forgiveLoginAttempts } from '../../users/login-delay'
import { findUserById } from '../../users/users-repo'
import { storeChallenge, takeChallengeOf } from './challenges'
import { expectationsOf, relyingPartyOf, verifiedOrNull } from './relying-party'
import * as repo from './repository'
import { loadWebAuthn } from './webauthn'
import { isDeletionPending } from '../../account-deletion/deletion-state'

export async function startSignIn(ctx: IamContext, input: { visitorRowId: number }): Promise<Record<string, unknown>> {
  const rp = relyingPartyOf(ctx)
  const { generateAuthenticationOptions } = await loadWebAuthn()
  const options = await generateAuthenticationOptions({
    rpID: rp.rpID,
    allowCredentials: [],
    userVerification: 'required',
    timeout: ctx.config.passkeys.challengeTtlMs,
  })
  await storeChallenge(ctx, { challenge: options.challenge, purpose: 'login', userId: null, visitorRowId: input.visitorRowId })
  return options as unknown as Record<string, unknown>
}

export type PasskeySignInResult =
  | { ok: true; pair: TokenPair; userId: number }
  | { ok: false; code: 'invalid_assertion' | 'counter_regressed' }
  | { ok: false; code: 'banned'; suspension: SuspensionView }

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export async function finishSignIn(
  ctx: IamContext,
  input: { credential: AuthenticationResponseJSON; remember: boolean; visitor: Visitor; ipAddress: string; fingerprint: Record<string, unknown> | null },
): Promise<PasskeySignInResult> {
  const actor = { visitorRowId: input.visitor.id, ipAddress: input.ipAddress }
  const taken = await takeChallengeOf(ctx, { clientDataJSON: input.credential.response.clientDataJSON, purpose: 'login', userId: null, visitorRowId: input.visitor.id })
  if (!taken) return { ok: false, code: 'invalid_assertion' }
  const passkey = await repo.findByCredentialId(ctx.db, input.credential.id)
  if (!passkey) return { ok: false, code: 'invalid_assertion' }
  // WebAuthn 7.2 step 6: a user handle, when given, must be the one the credential was made for
  const handle = input.credential.response.userHandle
  if (handle !== undefined && !sameText(handle, passkey.user_handle)) return { ok: false, code: 'invalid_assertion' }
  const { verifyAuthenticationResponse } = await loadWebAuthn()
  const verified = await verifiedOrNull(ctx, 'sign-in', () =>
    verifyAuthenticationResponse({
      response: input.credential,
      expectedChallenge: taken.challenge,
      ...expectationsOf(ctx),
      // the counter rule is applied by advanceSignCount in one conditional UPDATE, which also
      // settles two assertions racing with one counter value; 0 turns the library's own check off
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(passkey.public_key), counter: 0, transports: passkey.transports as never },
    }),
  )
  if (!verified) return { ok: false, code: 'invalid_assertion' }
  const now = new Date(ctx.now())
  const info = verified.authenticationInfo
  if (!(await repo.advanceSignCount(ctx.db, { id: passkey.id, signCount: info.newCounter, backedUp: info.credentialBackedUp, now }))) {
    await recordSecurityEvent(ctx.db, {
      type: 'passkey_counter_regressed',
      userId: passkey.user_id,
      ...actor,
      details: { passkeyId: passkey.id, stored: Number(passkey.sign_count), received: info.newCounter },
      at: now,
    })
    return { ok: false, code: 'counter_regressed' }
  }
  const user = await findUserById(ctx.db, passkey.user_id)
  // a disabled account's passkey is answered as a passkey nobody has
  if (!user || isDeletionPending(user)) return { ok: false, code: 'invalid_assertion' }
  const suspension = suspensionOf(user, now.getTime())
  if (suspension) return { ok: false, code: 'banned', suspension }
  const pair = await createSignInSession(ctx, user, input, input.remember, undefined, 'hwk user mfa')
  // the verify request spent a point of the IP's login budget (the options have their own limiter)
  await forgiveLoginAttempts(ctx, { email: user.email, visitorRowId: input.visitor.id, ipAddress: input.ipAddress })
  await recordSecurityEvent(ctx.db, { type: 'passkey_sign_in', userId: user.id, ...actor, details: { passkeyId: passkey.id }, at: now })
  return { ok: true, pair, userId: user.id }
}
