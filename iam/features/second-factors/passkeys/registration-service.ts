/**
 * Passkey registration and management for a signed-in account. Options ask for
 * a discoverable credential with user verification (so it can sign in alone, passwordless) and no
 * attestation (we keep no authenticator allow-list, so an attestation would prove nothing we use).
 */
import type { Locale } from '../../../contract/locales'
import { randomBytes } from 'node:crypto'
import type { RegistrationResponseJSON, VerifiedRegistrationResponse } from '@simplewebauthn/server'
import type { Insertable } from 'kysely'
import type { PasskeysTable } from '../../../db/schema'
import type { IamContext } from '../../../context'
import { sendSecondFactorNotice } from '../notice'
import { recordSecurityEvent } from '../../security-events/repository'
import { findUserById } from '../../users/users-repo'
import { storeChallenge, takeChallengeOf } from './challenges'
import { expectationsOf, relyingPartyOf, verifiedOrNull } from './relying-party'
import * as repo from './repository'
import { loadWebAuthn } from './webauthn'

/** One passkey as the account page lists it. */
export interface PasskeyView {
  id: number
  name: string
  createdAt: string
  lastUsedAt: string | null
  backupEligible: boolean
  backedUp: boolean
  transports: string[]
}

/** Who acted, for the security events. */
export interface PasskeyActor {
  visitorRowId: number
  ipAddress: string
  /** the request's language: the notice's when the account chose none */
  locale?: Locale | undefined
}

type ViewRow = Awaited<ReturnType<typeof repo.listPasskeys>>[number]

function viewOf(row: ViewRow): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at ? row.last_used_at.toISOString() : null,
    backupEligible: row.backup_eligible,
    backedUp: row.backed_up,
    transports: row.transports,
  }
}

export async function listAccountPasskeys(ctx: IamContext, userId: number): Promise<PasskeyView[]> {
  return (await repo.listPasskeys(ctx.db, userId)).map(viewOf)
}

/** Creation options; the challenge is bound to this account and device. */
export async function startRegistration(ctx: IamContext, input: { userId: number; visitorRowId: number }): Promise<Record<string, unknown>> {
  const user = await findUserById(ctx.db, input.userId)
  if (!user) throw new Error('signed-in user not found')
  const existing = await repo.listCredentialIds(ctx.db, input.userId)
  // One user handle per account, random rather than the row id (WebAuthn 14.6.1: no personal data).
  const userHandle = existing[0]?.user_handle ?? randomBytes(32).toString('base64url')
  const rp = relyingPartyOf(ctx)
  const { generateRegistrationOptions } = await loadWebAuthn()
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpID,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    userID: Buffer.from(userHandle, 'base64url'),
    timeout: ctx.config.passkeys.challengeTtlMs,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  })
  await storeChallenge(ctx, { challenge: options.challenge, purpose: 'register', userId: input.userId, visitorRowId: input.visitorRowId, userHandle })
  return options as unknown as Record<string, unknown>
}

type AuthenticatorTransportFuture = NonNullable<RegistrationResponseJSON['response']['transports']>[number]

export type FinishRegistrationResult = { ok: true; passkey: PasskeyView } | { ok: false; code: 'invalid_response' | 'already_registered' }

export async function finishRegistration(
  ctx: IamContext,
  input: { userId: number; actor: PasskeyActor; credential: RegistrationResponseJSON; name: string | undefined },
): Promise<FinishRegistrationResult> {
  const taken = await takeChallengeOf(ctx, {
    clientDataJSON: input.credential.response.clientDataJSON,
    purpose: 'register',
    userId: input.userId,
    visitorRowId: input.actor.visitorRowId,
  })
  if (!taken?.userHandle) return { ok: false, code: 'invalid_response' }
  const { verifyRegistrationResponse } = await loadWebAuthn()
  const verified = await verifiedOrNull(ctx, 'registration', () =>
    verifyRegistrationResponse({ response: input.credential, expectedChallenge: taken.challenge, ...expectationsOf(ctx) }),
  )
  const info = verified?.registrationInfo
  if (!info) return { ok: false, code: 'invalid_response' }
  const now = new Date(ctx.now())
  const row = await repo.insertPasskey(ctx.db, passkeyRowOf(info, input.credential, { userId: input.userId, userHandle: taken.userHandle, name: input.name, now }))
  if (!row) return { ok: false, code: 'already_registered' }
  await recordSecurityEvent(ctx.db, { type: 'second_factor_added', userId: input.userId, ...input.actor, details: { method: 'passkey', passkeyId: row.id }, at: now })
  sendSecondFactorNotice(ctx, { userId: input.userId, change: 'passkey_added', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true, passkey: viewOf(row) }
}

export type RemovePasskeyResult = { ok: true } | { ok: false; code: 'not_found' | 'last_way_in' }

/**
 * Removes one of the account's passkeys, but never the last way in: an account without a password
 * and without a linked provider (one made by a passkey sign-up, features/users/passkey-signup.ts)
 * keeps its last passkey until it sets a password (POST /auth/set-password) or links a provider.
 * As unlinking a provider (oauth-login/unlink-provider.ts), the check and the delete run in one
 * transaction holding the account row's lock, so two parallel removals of an account's two
 * passkeys cannot both see "the other one remains".
 */
export async function removePasskey(ctx: IamContext, input: { userId: number; actor: PasskeyActor; id: number }): Promise<RemovePasskeyResult> {
  const result = await ctx.db.transaction().execute(async (trx): Promise<RemovePasskeyResult> => {
    const user = await trx.selectFrom('users').select(['id', 'password_hash']).where('id', '=', input.userId).forUpdate().executeTakeFirst()
    if (!user) return { ok: false, code: 'not_found' }
    if (!user.password_hash) {
      // a linked OAuth provider or an organization's SAML sign-in is another way in
      const provider =
        (await trx.selectFrom('oauth_identities').select('user_id').where('user_id', '=', user.id).limit(1).executeTakeFirst()) ??
        (await trx.selectFrom('saml_identities').select('user_id').where('user_id', '=', user.id).limit(1).executeTakeFirst())
      const others = provider ? [] : await trx.selectFrom('passkeys').select('id').where('user_id', '=', user.id).where('id', '!=', input.id).limit(1).execute()
      const owned = await trx.selectFrom('passkeys').select('id').where('user_id', '=', user.id).where('id', '=', input.id).executeTakeFirst()
      if (!owned) return { ok: false, code: 'not_found' }
      if (!provider && others.length === 0) return { ok: false, code: 'last_way_in' }
    }
    return (await repo.deletePasskey(trx, input.userId, input.id)) ? { ok: true } : { ok: false, code: 'not_found' }
  })
  if (!result.ok) return result
  await recordSecurityEvent(ctx.db, { type: 'second_factor_removed', userId: input.userId, ...input.actor, details: { method: 'passkey', passkeyId: input.id }, at: new Date(ctx.now()) })
  sendSecondFactorNotice(ctx, { userId: input.userId, change: 'passkey_removed', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true }
}

/** The renamed passkey, or null when it is not this account's (another account's id reads as unknown). */
export async function renameAccountPasskey(ctx: IamContext, input: { userId: number; id: number; name: string }): Promise<PasskeyView | null> {
  const row = await repo.renamePasskey(ctx.db, input.userId, input.id, input.name)
  return row ? viewOf(row) : null
}

/**
 * The stored row of a verified registration: what the authenticator proved (credential id, public
 * key, counter, backup state) and what the browser said of its transports. Both ways a passkey is
 * made use it: added to an account here, and the first one of an account made with it
 * (users/passkey-signup.ts).
 */
export function passkeyRowOf(
  info: NonNullable<VerifiedRegistrationResponse['registrationInfo']>,
  credential: RegistrationResponseJSON,
  owner: { userId: number; userHandle: string; name?: string | undefined; now: Date },
): Insertable<PasskeysTable> {
  return {
    user_id: owner.userId,
    credential_id: info.credential.id,
    public_key: info.credential.publicKey,
    sign_count: info.credential.counter,
    transports: credential.response.transports ?? [],
    backup_eligible: info.credentialDeviceType === 'multiDevice',
    backed_up: info.credentialBackedUp,
    aaguid: info.aaguid,
    user_handle: owner.userHandle,
    name: owner.name ?? defaultPasskeyName(owner.now),
    created_at: owner.now,
  }
}

/** The name a passkey gets when its owner gives none. */
export function defaultPasskeyName(now: Date): string {
  return `Passkey added ${now.toISOString().slice(0, 10)}`
}
