/**
 * How a custom MFA flow (and the email change, a custom flow) is proven: the mailed link and its
 * code, or, for an account with a second factor, a TOTP or recovery code in place of both.
 * The second-factor proof needs no mail: it finds the live flow this session
 * started for the reason (POST /custom/mfa/:reason), so the flow's binding to user, session and
 * device, its expiry and its attempt budget hold for both proofs, and the mailed link stays usable
 * until one of them consumes the flow.
 */
import type { IamContext } from '../../context'
import type { LinkParams } from './link-token'
import { attemptCode, attemptWith, type CodeCheck } from './links'
import { findLink, findLiveLink, type LinkWithCode } from './repository'
import { verifySecondFactor } from '../second-factors/verify-factor'
import { checkSessionLink, type SessionUser } from './session-flow'
import type { CodeLocked } from '../second-factors/code-budget'
import { fail, linkFailure, type ActionFailure, type ActionLimited } from './action-failures'
import type { Actor } from '../security-events/repository'

export type FlowProof =
  | { kind: 'emailed'; params: LinkParams; code: string }
  | { kind: 'second_factor'; reason: string; code: string }

/** The flow the proof is for: the mailed link's, or this session's live flow for the reason. */
export async function locateFlow(
  ctx: IamContext,
  proof: FlowProof,
  user: SessionUser,
  accept: (purpose: string) => boolean,
): Promise<{ ok: true; link: LinkWithCode } | ActionFailure> {
  if (proof.kind === 'emailed') return checkSessionLink(ctx, proof.params, user, accept, 'check')
  if (!accept(proof.reason)) return linkFailure('mismatch')
  const live = await findLiveLink(ctx.db, { userId: user.userId, familyId: user.sessionId, purpose: proof.reason, now: new Date(ctx.now()) })
  const link = live ? await findLink(ctx.db, live.jti) : null
  if (!link || link.visitor !== user.visitor_id) return fail('flow_not_started')
  return { ok: true, link }
}

/**
 * One counted attempt with the proof. For a second factor the link comes back without its mailed
 * code, so consuming it does not depend on that code's shorter life.
 */
export async function attemptProof(
  ctx: IamContext,
  link: LinkWithCode,
  proof: FlowProof,
  who: { userId: number; actor: Actor },
): Promise<(CodeCheck & { ok: false }) | ActionLimited | { ok: true; link: LinkWithCode }> {
  if (proof.kind === 'emailed') {
    const check = await attemptCode(ctx, link, proof.code)
    return check.ok ? { ok: true, link } : check
  }
  const actor = { visitorRowId: who.actor.visitorRowId, ipAddress: who.actor.ipAddress }
  let locked: CodeLocked | null = null
  const check = await attemptWith(ctx, link, async () => {
    const verified = await verifySecondFactor(ctx, { userId: who.userId, code: proof.code, actor, purpose: link.purpose })
    if (!verified.ok && verified.code === 'locked') locked = verified
    return verified.ok
  })
  // the account's code entry is locked (second-factors/code-budget.ts): a limiter's refusal
  const lock = locked as CodeLocked | null
  if (lock) return { ok: false, code: 'rate_limited', decision: { ok: false, retryMs: lock.retryMs, permanent: false }, codeEntryLocked: true }
  return check.ok ? { ok: true, link: { ...link, code: null } } : check
}
