/**
 * A password login's device step and its account lookup in ONE read (see docs/performance.md): the device row
 * (by canary) and the account behind the address as typed come from one statement, so a steady
 * login costs that read and the session's write. The device step decides exactly as every sign-in
 * route does (devices-service.ts visitOfRow: the row written only when due, a banned device
 * refused); the account is used only after the attempt is admitted and the password verified
 * (login-service.ts), and only when the validated address has the same lookup key. Every attempt
 * with a device cookie makes this one read, admitted or not, known address or not: nothing in it
 * tells an account apart.
 */
import type { IamContext } from '../../context'
import { visitOfRow, type Visit, type VisitFacts } from '../devices/devices-service'
import { normalizeEmail } from '../email-checks/email-checks'
import { findDeviceAndLoginAccount, type LoginAccount } from './users-repo'

/** The account read with the device, and the lookup key it was read by. */
export interface PrefetchedAccount {
  key: string
  account: LoginAccount | undefined
}

/** The key an address is looked up by: normalised, then lower-cased (the unique index is on lower(email)). */
export const loginLookupKey = (email: string): string => normalizeEmail(email).toLowerCase()

// longer than any valid address (254): such a body fails validation, so its lookup is skipped ('' matches no account)
const MAX_LOOKUP_LENGTH = 1024

/** The device's visit and the account of `email` (the body's value, not yet validated). */
export async function visitLoginDevice(ctx: IamContext, facts: VisitFacts, email: unknown): Promise<Visit & { prefetched: PrefetchedAccount }> {
  const key = typeof email === 'string' && email.length <= MAX_LOOKUP_LENGTH ? loginLookupKey(email) : ''
  const { visitor, account } = await findDeviceAndLoginAccount(ctx.db, { canaryId: facts.canaryId, email: key })
  return { ...(await visitOfRow(ctx, visitor, facts)), prefetched: { key, account } }
}
