import { defineEventHandler, setResponseHeader } from 'h3'
import { useIam } from '../../context'
import { getKeyRing } from '../../features/tokens/token-service'

/** GET /.well-known/jwks.json: the public keys of every access token that may still be live. */
export default defineEventHandler(async (event) => {
  const ring = await getKeyRing(useIam())
  // short cache: resource servers pick up a rotation within a minute
  setResponseHeader(event, 'cache-control', 'public, max-age=60')
  return ring.jwks
})
