/**
 * Checks a second factor for an account with one enabled: a 6-digit TOTP code (taken once: its
 * time step must be later than the last one used) or a recovery code (spent once). Used by the
 * sign-in step, disable, and the custom MFA flows that accept it instead of the emailed code.
 * Failures and spent recovery codes are recorded in security_events (never the code itself).
 */
import type { Locale } from '../../contract/locales'
import type { IamContext } from '../../context'
import { recordSecurityEvent } from '../security-events/repository'
import { reserveCodeAttempt, settleCodeAttempt, type CodeLocked } from './code-budget'
import { hashRecoveryCode, normalizeRecoveryCode } from './recovery-codes'
import { sendSecondFactorNotice } from './notice'
import * as repo from './repository'
import { isTotpCode, matchTotpStep } from './totp/totp-code'
import { openTotpSecret } from './totp/totp-secret-box'

/** The methods the sign-in step offers; passkeys join this list when they land. */
export type SecondFactorMethod = 'totp' | 'recovery_code'

export interface FactorActor {
  visitorRowId: number | null
  ipAddress: string
  /** the request's language: the notice's when the account chose none */
  locale?: Locale | undefined
}

export type VerifyFactorResult = { ok: true; method: SecondFactorMethod } | { ok: false; code: 'invalid_code' } | CodeLocked

async function checkTotp(ctx: IamContext, userId: number, code: string): Promise<boolean> {
  const factor = await repo.findTotpFactor(ctx.db, userId)
  if (!factor?.enabled_at) return false
  const secret = openTotpSecret(ctx.config.secrets.totpKeys ?? [], userId, factor.secret_sealed)
  if (secret === null) {
    ctx.log.error('totp secret does not open with any configured key', { userId })
    return false
  }
  const step = matchTotpStep(secret, code, ctx.now())
  return step !== null && repo.takeTotpStep(ctx.db, userId, step, { state: 'enabled' })
}

async function spendRecovery(ctx: IamContext, userId: number, code: string): Promise<boolean> {
  const normalized = normalizeRecoveryCode(code)
  return normalized !== null && repo.spendRecoveryCode(ctx.db, userId, hashRecoveryCode(normalized), new Date(ctx.now()))
}

export async function verifySecondFactor(
  ctx: IamContext,
  input: { userId: number; code: string; actor: FactorActor; purpose: string },
): Promise<VerifyFactorResult> {
  const method: SecondFactorMethod = isTotpCode(input.code) ? 'totp' : 'recovery_code'
  // the account's failure budget (code-budget.ts) is asked before the code is looked at
  const event = { userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, at: new Date(ctx.now()) }
  const locked = async (result: CodeLocked): Promise<CodeLocked> => {
    if (result.fresh) {
      await recordSecurityEvent(ctx.db, { ...event, type: 'second_factor_locked', details: { lockMs: result.retryMs } })
      sendSecondFactorNotice(ctx, { userId: input.userId, change: 'codes_locked', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale })
    }
    return result
  }
  const attempt = await reserveCodeAttempt(ctx, input.userId)
  if (!attempt.ok) return locked(attempt)
  const ok = method === 'totp' ? await checkTotp(ctx, input.userId, input.code) : await spendRecovery(ctx, input.userId, input.code)
  const settled = await settleCodeAttempt(ctx, input.userId, attempt, ok)
  if (!ok) {
    await recordSecurityEvent(ctx.db, { ...event, type: 'second_factor_failed', details: { method, purpose: input.purpose } })
    return settled.ok ? { ok: false, code: 'invalid_code' } : locked(settled)
  }
  if (method === 'recovery_code') {
    const remaining = await repo.countUnusedRecoveryCodes(ctx.db, input.userId)
    await recordSecurityEvent(ctx.db, { ...event, type: 'recovery_code_used', details: { purpose: input.purpose, remaining } })
    // disabling says so in its own notice
    if (input.purpose !== 'disable') sendSecondFactorNotice(ctx, { userId: input.userId, change: 'recovery_code_used', ipAddress: input.actor.ipAddress, requestLocale: input.actor.locale, recoveryCodesLeft: remaining })
  }
  return { ok: true, method }
}
