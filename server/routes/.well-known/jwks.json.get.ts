/**
 * GET /.well-known/jwks.json: the public keys of the IAM's session access tokens, for the APIs the
 * gateway's proxy calls (/api/upstream/<name>/**, which sends those tokens as Bearer). The IAM
 * stays behind HMAC; its key set is public, so the gateway serves it (with the IAM's caching).
 */
import { setResponseHeader, setResponseStatus } from 'h3'
import { callIamRoute } from '../../utils/bff/iam-call'
import { defineBffHandler } from '../../utils/bff/respond'

export default defineBffHandler(async (event) => {
  const res = await callIamRoute(event, 'jwks', {})
  setResponseStatus(event, res.status === 200 ? 200 : 502)
  if (res.status !== 200) return { error: 'The key set is unavailable. Try again in a moment.' }
  const cache = res.headers.get('cache-control')
  if (cache) setResponseHeader(event, 'cache-control', cache)
  return res.body
})
