import { defineEventHandler, setResponseHeader } from 'h3'

/** GET /health: 200 text "OK" (HMAC-exempt from loopback; see middleware/20.hmac.ts). */
export default defineEventHandler((event) => {
  setResponseHeader(event, 'content-type', 'text/plain; charset=utf-8')
  return 'OK'
})
