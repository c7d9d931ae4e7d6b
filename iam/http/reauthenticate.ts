/**
 * The guards of the routes that change how an account signs in (adding or removing a second
 * factor or a passkey, changing the email) and of the platform administrators' routes: called right after full authentication, on facts it
 * already read in its one statement (the session's sign-in proof, the account), so neither costs
 * a round trip.
 */
import type { H3Event } from 'h3'
import { useIam } from '../context'
import { isPlatformAdmin } from '../features/admin/platform-admins'
import { authFail } from './auth'

export const REAUTHENTICATE_ERROR = 'Re-authentication required'
export const PLATFORM_ADMINS_ONLY = 'Platform administrators only'
export const VERIFY_EMAIL_FIRST = 'Confirm your email address before adding a way to sign in'
export const NOT_WHILE_IMPERSONATING = 'Not allowed while signed in on behalf of this account: end the impersonation first'

/**
 * 403 `{ ok: false, date, error: "Re-authentication required", reauthenticate: true }` unless the
 * session proved the sign-in within security.reauthenticateWithinMs: at its sign-in or by POST
 * /auth/reauthenticate (features/second-factors/reauthenticate.ts).
 */
export function requireRecentSignIn(event: H3Event, withinMs?: number): void {
  const ctx = useIam()
  const provedAt = event.context.signInProofAt
  if (provedAt !== undefined && ctx.now() - provedAt <= (withinMs ?? ctx.config.security.reauthenticateWithinMs)) return
  authFail(403, 'reauthentication_required', REAUTHENTICATE_ERROR, { reauthenticate: true })
}

/**
 * 403 `{ ok: false, date, error: "Platform administrators only" }` unless the account holds the
 * role `admin` (users.roles, read by full authentication in its one statement, so a revoked admin
 * is refused on the very next request). The same answer on every admin route, whatever it names.
 */
export function requirePlatformAdmin(event: H3Event): void {
  if (isPlatformAdmin(event.context.account?.roles)) return
  authFail(403, 'not_admin', PLATFORM_ADMINS_ONLY)
}

/**
 * 403 `{ ok: false, date, error, verifyEmail: true }` for an account whose address was never
 * confirmed: whoever signed up with someone else's address must not add a second factor or a
 * passkey that would survive the owner's recovery of the account.
 */
export function requireVerifiedEmail(event: H3Event): void {
  if (event.context.account?.email_verified) return
  authFail(403, 'email_unverified', VERIFY_EMAIL_FIRST, { verifyEmail: true })
}

/**
 * 403 `{ ok: false, date, error, impersonated: true }` for a session a platform administrator
 * opened on the account's behalf (session_families.impersonated_by, read by full authentication in
 * its one statement). The route table says where (contract/define.ts refusedWhileImpersonating):
 * whatever changes how the account signs in, its credentials or its administrators' powers.
 */
export function requireNotImpersonated(event: H3Event): void {
  if (!event.context.impersonatedBy) return
  authFail(403, 'impersonated', NOT_WHILE_IMPERSONATING, { impersonated: true })
}
