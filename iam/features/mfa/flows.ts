/**
 * Starting a link flow: one transaction serialised on the session (or user) row decides whether a
 * live link of the flow already exists, then issues the new link; the mail goes out after commit.
 * A mail that fails removes the link (and its code, by cascade), so nothing is left half-started.
 */
import { randomBytes } from 'node:crypto'
import type { IamContext } from '../../context'
import { getMailer, type OutgoingMail } from '../mail/mailer'
import { issueLink, rehearseLink, type IssuedLink, type LinkPath } from './links'
import { burnFlowLinks, deleteLink, findLiveLink, lockFlowOwner } from './repository'

export type FlowDeps = Pick<IamContext, 'db' | 'config' | 'log' | 'now'>

export interface StartFlowInput {
  purpose: string
  path: LinkPath
  userId: number
  familyId: string | null
  visitor: string
  data?: Record<string, unknown>
  withCode: boolean
  /** overrides magic_links.expiresInMs (verification and undo links live longer) */
  expiresInMs?: number
  /**
   * a live link of the same flow: 'keep' answers sent:false, 'replace' ends it and sends a new one,
   * 'add' leaves it live (each undo link restores its own address)
   */
  onLive: 'keep' | 'replace' | 'add'
  mail: (issued: IssuedLink) => OutgoingMail
}

export type StartFlowResult =
  | { ok: true; sent: true; issued: IssuedLink }
  | { ok: true; sent: false; expiresAt: Date }
  | { ok: false; code: 'session_gone' | 'mail_failed' }

export async function startFlow(deps: FlowDeps, input: StartFlowInput): Promise<StartFlowResult> {
  const owner = { userId: input.userId, familyId: input.familyId, purpose: input.purpose }
  const outcome = await deps.db.transaction().execute(async (trx) => {
    if (!(await lockFlowOwner(trx, input.userId, input.familyId))) return { kind: 'gone' as const }
    const now = new Date(deps.now())
    const live = input.onLive === 'add' ? null : await findLiveLink(trx, { ...owner, now })
    if (live && input.onLive === 'keep') return { kind: 'live' as const, expiresAt: live.expires_at }
    if (live) await burnFlowLinks(trx, { ...owner, now })
    const issued = await issueLink(trx, deps, {
      purpose: input.purpose,
      path: input.path,
      userId: input.userId,
      familyId: input.familyId,
      visitor: input.visitor,
      data: input.data,
      withCode: input.withCode,
      ...(input.expiresInMs ? { expiresInMs: input.expiresInMs } : {}),
    })
    return { kind: 'issued' as const, issued }
  })
  if (outcome.kind === 'gone') return { ok: false, code: 'session_gone' }
  if (outcome.kind === 'live') return { ok: true, sent: false, expiresAt: outcome.expiresAt }
  try {
    await getMailer(deps).send(input.mail(outcome.issued))
  } catch (error) {
    await deleteLink(deps.db, outcome.issued.jti).catch((cleanup: Error) =>
      deps.log.error('could not remove the link of a failed mail', { error: cleanup.message }),
    )
    deps.log.error('mail delivery failed', { purpose: input.purpose, userId: input.userId, error: (error as Error).message })
    return { ok: false, code: 'mail_failed' }
  }
  return { ok: true, sent: true, issued: outcome.issued }
}

/** Thrown to roll rehearseFlow's transaction back. */
const REHEARSED = Symbol('rehearsed')

/**
 * startFlow's database work for an address no account uses, thrown away: the same transaction
 * (the owner's row locked, the live link read, the flow's links burnt, the link and code inserted)
 * for a user id no row has (0: ids start at 1), the inserts writing no row, then rolled back.
 * POST /auth/forgot-password and POST /auth/email-sign-in run it after answering an unknown
 * address, where a known one runs startFlow: the work after an answer, which slows the requests
 * that follow it, is then the same for both (as an unknown address's login hashes a dummy
 * password, users/login-service.ts). On the embedded database that work runs in this process and
 * is most of what a mail costs (bench/login-enumeration.mjs --route).
 */
export async function rehearseFlow(deps: FlowDeps, input: { purpose: string; withCode: boolean; expiresInMs?: number }): Promise<void> {
  const owner = { userId: 0, familyId: null, purpose: input.purpose }
  await deps.db
    .transaction()
    .execute(async (trx) => {
      await lockFlowOwner(trx, owner.userId, null)
      const now = new Date(deps.now())
      await findLiveLink(trx, { ...owner, now })
      await burnFlowLinks(trx, { ...owner, now })
      await rehearseLink(trx, deps, { purpose: input.purpose, visitor: randomBytes(16).toString('base64url'), withCode: input.withCode, ...(input.expiresInMs ? { expiresInMs: input.expiresInMs } : {}) })
      throw REHEARSED
    })
    .catch((error: unknown) => {
      if (error !== REHEARSED) throw error
    })
}

/**
 * A flow its link completes without a session (password reset, email verification, undo email
 * change): bound to the user alone, no code, and a random visitor since no device is known.
 */
export function startSessionlessFlow(deps: FlowDeps, input: Omit<StartFlowInput, 'familyId' | 'visitor' | 'withCode'>): Promise<StartFlowResult> {
  return startFlow(deps, { ...input, familyId: null, visitor: randomBytes(16).toString('base64url'), withCode: false })
}

/** The link and code of an issued link as a mail shows them: the code's life is counted from now. */
export function codeMailFields(deps: Pick<FlowDeps, 'now'>, issued: IssuedLink): { link: string; code: string; codeTtlMs: number } {
  return { link: issued.url, code: issued.code ?? '', codeTtlMs: (issued.codeExpiresAt?.getTime() ?? deps.now()) - deps.now() }
}

/** The user's address and name, for mails. */
export async function findMailRecipient(deps: Pick<IamContext, 'db'>, userId: number) {
  return (await deps.db.selectFrom('users').select(['id', 'email', 'name', 'password_hash', 'locale', 'time_zone']).where('id', '=', userId).executeTakeFirst()) ?? null
}

/** `j***@example.com`: enough for the owner to recognise, little for anyone else. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at < 1) return '***'
  return `${email[0]}***${email.slice(at)}`
}
