/**
 * Sign-up with a passkey and no password (docs/accounts.md, "Accounts without a password"):
 *
 * 1. start: the address (and a name). The answer is one fixed body for every address; the lookup
 *    and the mail run after the response, so neither the body, the status nor the timing tells
 *    whether an account exists (as POST /auth/email-sign-in, email-sign-in-request.ts). An unknown
 *    address gets a 7-digit code; an address with an account gets "you already have an account".
 * 2. options: the address and the code. Every try spends one of the address's code budget
 *    (second-factors/code-budget.ts, keyed on the address: an address without a code spends and
 *    locks like one with a code). The right code is spent in the statement that opens the WebAuthn
 *    ceremony, bound to the asking device, with a fresh random user handle (WebAuthn 14.6.1).
 * 3. finish: the ceremony id and the authenticator's answer. The ceremony is taken before the
 *    answer is checked (any answer spends it, a replay finds nothing); a verified answer creates
 *    the account with its address confirmed (the code proved the mailbox) and no password, the
 *    passkey and the first session in ONE transaction. The unique index on lower(email) decides a
 *    race with any other sign-up: the loser gets `email_taken`, which it may be told, since it
 *    proved the mailbox.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { RegistrationResponseJSON } from '@simplewebauthn/server'
import type { IamContext } from '../../context'
import { chooseLocale, type Locale } from '../../contract/locales'
import type { Visitor } from '../../db/schema'
import { runAfterResponse } from '../../lib/background'
import { checkEmailAddress } from '../email-checks/email-checks'
import { admitMailTo } from '../mail/address-cap'
import { getMailer } from '../mail/mailer'
import { accountExistsMail, passkeySignupMail } from '../mail/templates'
import { codeMatches, generateCode, macCode, type CodeBinding } from '../mfa/codes'
import { reserveCodeAttempt, settleCodeAttempt, type CodeLocked } from '../second-factors/code-budget'
import { challengeOfClientData } from '../second-factors/passkeys/challenges'
import { expectationsOf, KEEP_DEAD_CHALLENGES_MS, relyingPartyOf, verifiedOrNull } from '../second-factors/passkeys/relying-party'
import { passkeyRowOf } from '../second-factors/passkeys/registration-service'
import { insertPasskey } from '../second-factors/passkeys/repository'
import { loadWebAuthn } from '../second-factors/passkeys/webauthn'
import { completePair, openSession, type TokenPair } from '../sessions/session-service'
import * as repo from './passkey-signup-repo'
import { refundLoginIpPoints } from './login-delay'
import { findUserByEmail, insertUser, isUniqueViolation } from './users-repo'

/** The one body of POST /auth/passkey-signup/start (no date: identical bytes for every address). */
export const PASSKEY_SIGNUP_BODY = Object.freeze({ ok: true, message: 'A mail is on its way to this address: type the code it holds to go on.' })

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex')

/** The code's MAC binds it to this flow and address, so a MAC copied from another table proves nothing here. */
const bindingOf = (email: string): CodeBinding => ({ linkJti: `passkey-signup:${email}`, userId: 0, familyId: null })

function codesSecret(ctx: IamContext): string {
  // boot fills it in the dev profile and production refuses to start without it (mfa/links.ts)
  const secret = ctx.config.secrets.codes
  if (!secret) throw new Error('secrets.codes is not configured')
  return secret
}

/** The key every step uses for an address: what the users' unique index compares (lower(email)). */
const keyOf = (email: string) => email.toLowerCase()

export type StartPasskeySignupResult = { ok: true } | { ok: false; code: 'email_invalid'; reason: string }

/** Checks the address's form and domain (as POST /signup), then schedules the lookup and the mail. */
export async function startPasskeySignup(
  ctx: IamContext,
  input: { email: string; name: string | undefined; requestLocale: Locale | undefined },
): Promise<StartPasskeySignupResult> {
  const checked = await checkEmailAddress(input.email, { ...ctx.config.emailChecks }, (msg, fields) => ctx.log.warn(msg, fields))
  if (!checked.ok) return { ok: false, code: 'email_invalid', reason: checked.reason }
  const email = keyOf(checked.email)
  runAfterResponse(
    () => sendPasskeySignupMail(ctx, { email, name: input.name ?? null, requestLocale: input.requestLocale }),
    (error) => ctx.log.error('passkey sign-up mail failed', { error: error.message }),
  )
  return { ok: true }
}

/** After the response: the code for an unknown address, "you already have an account" for a known one. */
export async function sendPasskeySignupMail(ctx: IamContext, input: { email: string; name: string | null; requestLocale: Locale | undefined }): Promise<void> {
  const { siteName } = ctx.config.email
  const user = await findUserByEmail(ctx.db, input.email)
  if (!(await admitMailTo(ctx, { email: input.email, userId: user?.id ?? null, kind: 'passkey_signup' }))) return
  if (user) {
    const loginUrl = new URL('/login', ctx.config.magic_links.domain).toString()
    const content = accountExistsMail({ siteName, locale: chooseLocale(user.locale, input.requestLocale), loginUrl })
    await getMailer(ctx).send({ to: user.email, links: [loginUrl], content })
    return
  }
  const now = ctx.now()
  const code = generateCode()
  const ttlMs = ctx.config.codes.ttlMs
  await repo.deleteStale(ctx.db, new Date(now - KEEP_DEAD_CHALLENGES_MS))
  await repo.putCode(ctx.db, { email: input.email, name: input.name, codeHmac: macCode(codesSecret(ctx), code, bindingOf(input.email)), codeExpiresAt: new Date(now + ttlMs), now: new Date(now) })
  await getMailer(ctx).send({ to: input.email, content: passkeySignupMail({ siteName, locale: chooseLocale(null, input.requestLocale), code, codeTtlMs: ttlMs }) })
}

export type PasskeySignupOptionsResult = { ok: true; options: Record<string, unknown>; ceremonyId: string } | { ok: false; code: 'code_invalid' } | CodeLocked

/** The code checked against the address's budget and spent; creation options bound to this device. */
export async function passkeySignupOptions(ctx: IamContext, input: { email: string; code: string; visitorRowId: number }): Promise<PasskeySignupOptionsResult> {
  const email = keyOf(input.email.trim())
  const reserved = await reserveCodeAttempt(ctx, { address: email })
  if (!reserved.ok) return reserved
  const now = ctx.now()
  const row = await repo.findLiveCode(ctx.db, email, new Date(now))
  const right = !!row?.code_hmac && codeMatches(codesSecret(ctx), input.code, bindingOf(email), row.code_hmac)
  if (row && !right) await repo.countWrongCode(ctx.db, email, ctx.config.magic_links.attempts)
  const settled = await settleCodeAttempt(ctx, { address: email }, reserved, right)
  if (!settled.ok) return settled
  if (!row?.code_hmac || !right) return { ok: false, code: 'code_invalid' }
  // One user handle per account, random rather than the row id (WebAuthn 14.6.1: no personal data).
  const userHandle = randomBytes(32).toString('base64url')
  const rp = relyingPartyOf(ctx)
  const { generateRegistrationOptions } = await loadWebAuthn()
  // as registration for a signed-in account (passkeys/registration-service.ts): discoverable, user verified, no attestation
  const options = await generateRegistrationOptions({
    rpName: rp.rpName,
    rpID: rp.rpID,
    userName: email,
    userDisplayName: row.name ?? email,
    userID: Buffer.from(userHandle, 'base64url'),
    timeout: ctx.config.passkeys.challengeTtlMs,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  })
  // 32 random bytes: the ceremony id is the only handle the finish step takes
  const ceremonyId = randomBytes(32).toString('base64url')
  const opened = await repo.openCeremony(ctx.db, {
    email,
    codeHmac: row.code_hmac,
    now: new Date(now),
    ceremonyHash: sha256(ceremonyId),
    challengeHash: sha256(options.challenge),
    userHandle,
    visitorRowId: input.visitorRowId,
    expiresAt: new Date(now + ctx.config.passkeys.challengeTtlMs),
  })
  // a parallel request with the same code opened it first: the code is used
  if (!opened) return { ok: false, code: 'code_invalid' }
  return { ok: true, options: options as unknown as Record<string, unknown>, ceremonyId }
}

export type FinishPasskeySignupResult =
  | { ok: true; pair: TokenPair; userId: number }
  | { ok: false; code: 'ceremony_invalid' | 'invalid_response' | 'already_registered' | 'email_taken' }

/** Thrown inside the transaction to roll the account back when the credential id is someone's already. */
class CredentialTaken extends Error {}

export async function finishPasskeySignup(
  ctx: IamContext,
  input: { ceremonyId: string; credential: RegistrationResponseJSON; remember: boolean; visitor: Visitor; ipAddress: string; fingerprint: Record<string, unknown> | null; timeZone?: string | null },
): Promise<FinishPasskeySignupResult> {
  const nowMs = ctx.now()
  const now = new Date(nowMs)
  const ceremony = await repo.takeCeremony(ctx.db, { ceremonyHash: sha256(input.ceremonyId), visitorRowId: input.visitor.id, now })
  if (!ceremony?.challenge_hash || !ceremony.user_handle) return { ok: false, code: 'ceremony_invalid' }
  const challenge = await challengeOfClientData(input.credential.response.clientDataJSON)
  if (!challenge || sha256(challenge) !== ceremony.challenge_hash) return { ok: false, code: 'invalid_response' }
  const { verifyRegistrationResponse } = await loadWebAuthn()
  const verified = await verifiedOrNull(ctx, 'sign-up', () => verifyRegistrationResponse({ response: input.credential, expectedChallenge: challenge, ...expectationsOf(ctx) }))
  const info = verified?.registrationInfo
  if (!info) return { ok: false, code: 'invalid_response' }
  const userHandle = ceremony.user_handle
  try {
    const created = await ctx.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { email: ceremony.email, name: ceremony.name ?? '', passwordHash: null, emailVerified: true, termsConsent: true, now, timeZone: input.timeZone ?? null })
      const passkey = await insertPasskey(trx, passkeyRowOf(info, input.credential, { userId: user.id, userHandle, now }))
      if (!passkey) throw new CredentialTaken()
      // the session is the passkey sign-in's (passkeys/sign-in-service.ts): user verification makes it two factors
      const session = await openSession(
        ctx,
        trx,
        { userId: user.id, visitorRowId: input.visitor.id, ipAddress: input.ipAddress, fingerprint: input.fingerprint, remember: input.remember, mfaPassed: true, amr: 'hwk user mfa' },
        (sessionId) => ({
          type: 'signed_up',
          userId: user.id,
          visitorRowId: input.visitor.id,
          ipAddress: input.ipAddress,
          details: { method: 'passkey', sessionId, passkeyId: passkey.id, emailConfirmedBy: 'code' },
          at: now,
        }),
      )
      return { user, session }
    })
    const pair = await completePair(ctx, created.session, { subject: created.user.public_id, roles: created.user.roles, visitor: input.visitor.visitor_id })
    ctx.log.info('user signed up', { userId: created.user.id, method: 'passkey' })
    // a sign-up that worked is no failure: the point this request spent of the IP's login budget
    // goes back, as after a passkey sign-in (passkeys/sign-in-service.ts)
    runAfterResponse(
      () => refundLoginIpPoints(ctx, input.ipAddress),
      (error) => ctx.log.warn('passkey sign-up: IP budget points not given back', { error: error.message }),
    )
    return { ok: true, pair, userId: created.user.id }
  } catch (error) {
    if (error instanceof CredentialTaken) return { ok: false, code: 'already_registered' }
    if (isUniqueViolation(error)) return { ok: false, code: 'email_taken' }
    throw error
  }
}
