/**
 * TOTP enrolment: setup (a pending secret; a new setup replaces a pending one),
 * enable (a code from the app confirms it and 10 recovery codes are issued, shown once) and
 * disable (a TOTP or recovery code). Each returns a closed union of outcome codes.
 */
import type { IamContext } from '../../../context'
import { recordSecurityEvent } from '../../security-events/repository'
import { findUserById } from '../../users/users-repo'
import { hashRecoveryCode, newRecoveryCodes, normalizeRecoveryCode } from '../recovery-codes'
import { sendSecondFactorNotice } from '../notice'
import * as repo from '../repository'
import { matchTotpStep, newTotpSecret, totpUri } from './totp-code'
import { openTotpSecret, sealTotpSecret } from './totp-secret-box'
import type { CodeLocked } from '../code-budget'
import { verifySecondFactor, type FactorActor } from '../verify-factor'

export type SetupResult = { ok: true; secret: string; otpauthUrl: string } | { ok: false; code: 'already_enabled' | 'no_user' }

export async function setupTotp(ctx: IamContext, userId: number): Promise<SetupResult> {
  const user = await findUserById(ctx.db, userId)
  if (!user) return { ok: false, code: 'no_user' }
  const secret = newTotpSecret()
  const sealed = sealTotpSecret(ctx.config.secrets.totpKeys ?? [], userId, secret)
  if (!(await repo.upsertPendingTotp(ctx.db, userId, sealed, new Date(ctx.now())))) return { ok: false, code: 'already_enabled' }
  const issuer = ctx.config.secondFactor.totp.issuer ?? ctx.config.email.siteName
  return { ok: true, secret, otpauthUrl: totpUri(secret, issuer, user.email) }
}

export type EnableResult = { ok: true; recoveryCodes: string[] } | { ok: false; code: 'no_pending' | 'invalid_code' }

/** Confirms the pending secret with a code from the app; the step it used counts as taken. */
export async function enableTotp(ctx: IamContext, input: { userId: number; code: string; actor: FactorActor }): Promise<EnableResult> {
  const factor = await repo.findTotpFactor(ctx.db, input.userId)
  if (!factor || factor.enabled_at) return { ok: false, code: 'no_pending' }
  const secret = openTotpSecret(ctx.config.secrets.totpKeys ?? [], input.userId, factor.secret_sealed)
  const now = ctx.now()
  const step = secret === null ? null : matchTotpStep(secret, input.code, now)
  if (step === null) return { ok: false, code: 'invalid_code' }
  const recoveryCodes = newRecoveryCodes()
  const hashes = recoveryCodes.map((code) => hashRecoveryCode(normalizeRecoveryCode(code)!))
  const enabled = await ctx.db.transaction().execute(async (trx) => {
    // the same row, still pending, still holding the secret the code was checked against
    if (!(await repo.takeTotpStep(trx, input.userId, step, { state: 'pending', enableAt: new Date(now), sealed: factor.secret_sealed }))) return false
    await repo.replaceRecoveryCodes(trx, input.userId, hashes, new Date(now))
    await recordSecurityEvent(trx, {
      type: 'second_factor_added',
      userId: input.userId,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      details: { method: 'totp' },
      at: new Date(now),
    })
    return true
  })
  if (!enabled) return { ok: false, code: 'invalid_code' }
  sendSecondFactorNotice(ctx, { userId: input.userId, change: 'added', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true, recoveryCodes }
}

export type DisableResult = { ok: true } | { ok: false; code: 'not_enabled' | 'invalid_code' } | CodeLocked

export async function disableTotp(ctx: IamContext, input: { userId: number; code: string; actor: FactorActor }): Promise<DisableResult> {
  if (!(await repo.hasSecondFactor(ctx.db, input.userId))) return { ok: false, code: 'not_enabled' }
  const verified = await verifySecondFactor(ctx, { userId: input.userId, code: input.code, actor: input.actor, purpose: 'disable' })
  if (!verified.ok) return verified
  const removed = await ctx.db.transaction().execute(async (trx) => {
    if (!(await repo.deleteSecondFactor(trx, input.userId))) return false
    await recordSecurityEvent(trx, {
      type: 'second_factor_removed',
      userId: input.userId,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      details: { method: 'totp', with: verified.method },
      at: new Date(ctx.now()),
    })
    return true
  })
  if (!removed) return { ok: false, code: 'not_enabled' }
  sendSecondFactorNotice(ctx, { userId: input.userId, change: 'removed', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true }
}

export type RegenerateResult = { ok: true; recoveryCodes: string[] } | { ok: false; code: 'not_enabled' }

/**
 * Replaces every recovery code of the account by 10 new ones, in one transaction: the old ones,
 * used or not, stop working when it commits. Only for an account with TOTP enabled.
 */
export async function regenerateRecoveryCodes(ctx: IamContext, input: { userId: number; actor: FactorActor }): Promise<RegenerateResult> {
  const recoveryCodes = newRecoveryCodes()
  const hashes = recoveryCodes.map((code) => hashRecoveryCode(normalizeRecoveryCode(code)!))
  const now = new Date(ctx.now())
  const replaced = await ctx.db.transaction().execute(async (trx) => {
    // the factor's row, locked: a disable running meanwhile cannot leave codes without a factor
    if (!(await repo.lockEnabledTotp(trx, input.userId))) return false
    await repo.replaceRecoveryCodes(trx, input.userId, hashes, now)
    await recordSecurityEvent(trx, {
      type: 'recovery_codes_regenerated',
      userId: input.userId,
      visitorRowId: input.actor.visitorRowId,
      ipAddress: input.actor.ipAddress,
      details: { count: recoveryCodes.length },
      at: now,
    })
    return true
  })
  if (!replaced) return { ok: false, code: 'not_enabled' }
  sendSecondFactorNotice(ctx, { userId: input.userId, change: 'recovery_codes_regenerated', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
  return { ok: true, recoveryCodes }
}

/** What the account page shows: whether TOTP is on and how many recovery codes are left. */
export async function totpStatus(ctx: IamContext, userId: number): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
  const enabled = await repo.hasSecondFactor(ctx.db, userId)
  return { enabled, recoveryCodesLeft: enabled ? await repo.countUnusedRecoveryCodes(ctx.db, userId) : 0 }
}
