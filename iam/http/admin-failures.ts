/** The answers of the /admin routes' shared failures (features/admin). */
import { authFail } from './auth'

export const NO_SUCH_USER = 'No such user'

export const ADMIN_NO_SUCH_USER = () => authFail(404, 'user_not_found', NO_SUCH_USER)

export const ADMIN_FAILURES = {
  unknown_user: ADMIN_NO_SUCH_USER,
} as const
