import { setResponseHeader } from 'h3'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'
import { getKeyRing } from '../../features/tokens/token-service'
import { defineRoute } from '../../http/route'

/** GET /.well-known/jwks.json: the public keys of every access token that may still be live. */
export default defineRoute(ROUTES.jwks, [], async ({ event }) => {
  const ring = await getKeyRing(useIam())
  // short cache: resource servers pick up a rotation within a minute
  setResponseHeader(event, 'cache-control', 'public, max-age=60')
  return ring.jwks
})
