/**
 * The IAM's route table: every route once, by id. Area files hold the entries; this joins them
 * and refuses (at type level and at load) an id or a method + path declared twice.
 */
import { ACCOUNT_ACTION_ROUTES } from './account-actions'
import { ACCOUNT_DELETION_ROUTES } from './account-deletion'
import { ACCOUNT_EXPORT_ROUTES } from './account-export'
import { ACCOUNT_SECURITY_ROUTES } from './account-security'
import { ADMIN_ROUTES } from './admin'
import { MAIL_TEMPLATE_ROUTES } from './mail-templates'
import { API_TOKEN_ROUTES } from './api-tokens'
import { AUTH_ROUTES } from './auth'
import type { RouteContract } from './define'
import { GATEWAY_AUTH_ROUTES } from './gateway-auth'
import { OIDC_ROUTES } from './oidc'
import { ORGANIZATION_ROUTES } from './organizations'
import { PASSKEY_ROUTES } from './passkeys'
import { SCIM_ROUTES } from './scim'
import { SECOND_FACTOR_ROUTES } from './second-factor'
import { SERVICE_ROUTES } from './service'
import { WEBHOOK_ROUTES } from './webhooks'
import { OIDC_CLIENT_ROUTES } from './oidc-clients'
import { ENTERPRISE_ROUTES } from './enterprise'
import { PROFILE_PICTURE_ROUTES } from './profile-picture'

const AREAS = [
  AUTH_ROUTES,
  ACCOUNT_ACTION_ROUTES,
  GATEWAY_AUTH_ROUTES,
  API_TOKEN_ROUTES,
  SERVICE_ROUTES,
  ACCOUNT_SECURITY_ROUTES,
  ACCOUNT_EXPORT_ROUTES,
  SECOND_FACTOR_ROUTES,
  PASSKEY_ROUTES,
  OIDC_ROUTES,
  ORGANIZATION_ROUTES,
  ADMIN_ROUTES,
  MAIL_TEMPLATE_ROUTES,
  ACCOUNT_DELETION_ROUTES,
  WEBHOOK_ROUTES,
  OIDC_CLIENT_ROUTES,
  ENTERPRISE_ROUTES,
  SCIM_ROUTES,
  PROFILE_PICTURE_ROUTES,
] as const

export const ROUTES = {
  ...AUTH_ROUTES,
  ...ACCOUNT_ACTION_ROUTES,
  ...GATEWAY_AUTH_ROUTES,
  ...API_TOKEN_ROUTES,
  ...SERVICE_ROUTES,
  ...ACCOUNT_SECURITY_ROUTES,
  ...ACCOUNT_EXPORT_ROUTES,
  ...SECOND_FACTOR_ROUTES,
  ...PASSKEY_ROUTES,
  ...OIDC_ROUTES,
  ...ORGANIZATION_ROUTES,
  ...ADMIN_ROUTES,
  ...MAIL_TEMPLATE_ROUTES,
  ...ACCOUNT_DELETION_ROUTES,
  ...WEBHOOK_ROUTES,
  ...OIDC_CLIENT_ROUTES,
  ...ENTERPRISE_ROUTES,
  ...SCIM_ROUTES,
  ...PROFILE_PICTURE_ROUTES,
}

export type RouteId = keyof typeof ROUTES

// A spread keeps the last of two equal ids: count them instead of trusting the join.
const declared = AREAS.map((area) => Object.keys(area).length).reduce((a, b) => a + b, 0)
if (declared !== Object.keys(ROUTES).length) throw new Error('a route id is declared in two areas')
const seen = new Set<string>()
for (const route of Object.values(ROUTES) as RouteContract[]) {
  const key = `${route.method} ${route.path}`
  if (seen.has(key)) throw new Error(`route declared twice: ${key}`)
  seen.add(key)
}
