/** TOTP, recovery codes, passkeys and the second-factor step at login (DESIGN section 7, issue 15). */
import { defineRoutes } from './define'

export const SECOND_FACTOR_ROUTES = defineRoutes({})
