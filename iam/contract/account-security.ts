/** Sessions, password change and the audit view (DESIGN sections 6 and 7, issue 15). */
import { defineRoutes } from './define'

export const ACCOUNT_SECURITY_ROUTES = defineRoutes({})
