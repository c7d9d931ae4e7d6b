/**
 * The restore proof of an account scheduled for deletion (iam/features/account-deletion/restore-link.ts):
 * POST /login answers it to the right password, and POST /api/auth/restore-link trades it for the
 * mail with the restore link. The BFF keeps it in an HttpOnly cookie, never in the page: like a
 * token, page JavaScript does not hold it (respond.ts strips it from every relayed body), and the
 * no-JavaScript sign-in form can ask for the link with a plain form post.
 */
import { deleteCookie, getCookie, setCookie, type H3Event } from 'h3'
import { gatewayNow } from '../clock'

export const RESTORE_COOKIE = '__Host-restore'

const cookieOptions = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' } as const
const PROOF = /^[A-Za-z0-9_-]{43}$/
/** the IAM's own bound on a proof's life (RESTORE_PROOF_TTL_MS): a wrong expiry never keeps one longer */
const MAX_AGE_S = 600

export interface DeletionPending {
  dueAt: string
}

/**
 * When the IAM's answer is the deletion-pending refusal, keeps its proof in the cookie (for as long
 * as it lives) and answers its due moment; undefined for any other answer.
 */
export function keepRestoreProof(event: H3Event, res: { status: number; body: unknown }): DeletionPending | undefined {
  if (res.status !== 403 || !res.body || typeof res.body !== 'object') return undefined
  const { deletionPending, dueAt, restoreProof, restoreProofExpiresAt } = res.body as Record<string, unknown>
  if (deletionPending !== true || typeof dueAt !== 'string' || Number.isNaN(Date.parse(dueAt))) return undefined
  if (typeof restoreProof === 'string' && PROOF.test(restoreProof)) {
    const leftS = typeof restoreProofExpiresAt === 'string' ? Math.floor((Date.parse(restoreProofExpiresAt) - gatewayNow()) / 1000) : MAX_AGE_S
    const maxAge = Math.min(MAX_AGE_S, Math.max(1, Number.isNaN(leftS) ? MAX_AGE_S : leftS))
    setCookie(event, RESTORE_COOKIE, restoreProof, { ...cookieOptions, maxAge })
  }
  return { dueAt }
}

/** This browser's restore proof, when it holds one of the right shape. */
export function readRestoreProof(event: H3Event): string | undefined {
  const value = getCookie(event, RESTORE_COOKIE)
  return value && PROOF.test(value) ? value : undefined
}

export function clearRestoreProof(event: H3Event): void {
  deleteCookie(event, RESTORE_COOKIE, cookieOptions)
}
