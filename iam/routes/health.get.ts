import { setResponseHeader } from 'h3'
import { ROUTES } from '../contract/routes'
import { defineRoute } from '../http/route'

/** GET /health: 200 text "OK" (HMAC-exempt from loopback; see middleware/20.hmac.ts). */
export default defineRoute(ROUTES.health, [], ({ event }) => {
  setResponseHeader(event, 'content-type', 'text/plain; charset=utf-8')
  return 'OK'
})
