/**
 * The refusal of a password or email sign-in, a sign-up or a reset for an address whose domain
 * requires its organization's sign-in (features/enterprise/sso-required.ts): 403 `sso_required`
 * with where to continue, the connection POST /sso/discover names and the gateway's SAML start
 * (`/sso/saml/{connectionId}/start`, docs/enterprise.md).
 *
 * It leaks nothing about accounts: the refusal depends on the domain alone, which its
 * organization proved in public DNS and POST /sso/discover tells anyone. It comes before any
 * password is verified, any mail is sent and any per-address limiter counts (a route's per-IP
 * budget taken by its middleware still counts), so an address with an account and one without, a
 * right password and a wrong one, all get this same answer. The one exception, a platform
 * administrator's password sign-in, is features/users/login-service.ts's to explain.
 */
import type { IamContext } from '../context'
import type { SsoRequired } from '../features/enterprise/sso-required'
import { authFail } from './auth'

export const SSO_REQUIRED_MESSAGE = 'Your organization signs you in through its identity provider'

export function failSsoRequired(ctx: IamContext, required: SsoRequired): never {
  const startUrl = `${ctx.config.enterprise.gatewayOrigin}/sso/saml/${encodeURIComponent(required.connectionId)}/start`
  return authFail(403, 'sso_required', SSO_REQUIRED_MESSAGE, { connectionId: required.connectionId, startUrl })
}
