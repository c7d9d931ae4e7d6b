/**
 * The sign-in routes' answer to a suspended account (POST /login, /auth/second-factor, passkey
 * sign-in): 403 `account_banned` with the suspension's end and reason (contract/responses.ts
 * `suspendedBody`). Given only after the credentials were right, so it tells nothing to whoever
 * does not hold them.
 */
import type { SuspensionView } from '../features/users/suspension'
import { authFail } from './auth'

export function failSuspended(suspension: SuspensionView): never {
  return authFail(403, 'account_banned', 'Account suspended', { banned: true, until: suspension.until, reason: suspension.reason })
}
