import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { httpFail } from '../../http/respond'
import { getClientIp } from '../../http/request'
import { normalizeIp } from '../../../shared/ip'
import { defineRoute } from '../../http/route'

/**
 * GET /operational/config: the cookie domain and access token TTL for
 * the trusted client only, judged on the resolved client IP: service.clientIp or
 * service.proxy.ipToTrust. Others get 403 `{ error: "Forbidden" }`.
 */
export default defineRoute(ROUTES.operationalConfig, [], ({ event }) => {
  const { config } = useIam()
  const allowed = [config.service.clientIp, config.service.proxy.ipToTrust]
    .filter((ip): ip is string => typeof ip === 'string' && ip !== '')
    .map(normalizeIp)
  if (!allowed.includes(getClientIp(event))) httpFail(403, { error: 'Forbidden', code: 'forbidden' })
  return {
    domain: config.jwt.refresh_tokens.domain,
    accessTokenTTL: config.jwt.access_tokens.expiresInMs,
  }
})
