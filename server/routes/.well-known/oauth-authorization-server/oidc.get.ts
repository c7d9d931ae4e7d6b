/**
 * RFC 8414 section 3: an OAuth client that knows only the issuer (`<origin>/oidc`) looks for the
 * authorization server's metadata at /.well-known/oauth-authorization-server/oidc (the well-known
 * part goes before the issuer's path). MCP clients discover us this way. The answer is the
 * provider's OpenID discovery document, which RFC 8414 section 5 allows to serve both.
 */
import { defineEventHandler } from 'h3'
import { forwardToProvider, sendProviderAnswer } from '../../../utils/oidc-forward'

export default defineEventHandler(async (event) => {
  const answer = await forwardToProvider(event, '/oidc/.well-known/openid-configuration')
  return answer ? sendProviderAnswer(event, answer) : undefined
})
