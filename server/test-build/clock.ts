/**
 * Test build only (GATEWAY_TEST_BUILD=1 adds it in nuxt.config.ts): the gateway's clock becomes the
 * wall clock plus an offset that only grows, and POST /__test/clock { advanceMs } moves it, so tests
 * move the gateway's time (token life, cookie expiry) instead of sleeping. Inert unless
 * GATEWAY_TEST_CLOCK=1, and refused in production.
 */
import { defineEventHandler, readBody } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import { replaceGatewayClockSource } from '../utils/clock'
import { isProduction } from '../utils/oauth/cookie-secret'

let offsetMs = 0
const testClockNow = () => Date.now() + offsetMs
const MAX_ADVANCE_MS = 366 * 24 * 3600 * 1000

export default defineNitroPlugin((nitroApp) => {
  if (process.env['GATEWAY_TEST_CLOCK'] !== '1') return
  if (isProduction()) throw new Error('GATEWAY_TEST_CLOCK is a test switch and is refused in production')
  replaceGatewayClockSource(testClockNow)
  nitroApp.router.post(
    '/__test/clock',
    defineEventHandler(async (event) => {
      const body = (await readBody(event).catch(() => undefined)) as { advanceMs?: unknown } | undefined
      const ms = body?.advanceMs
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
        event.node.res.statusCode = 400
        return { ok: false, reason: 'advanceMs must be an integer of ms, 0 to one year' }
      }
      offsetMs += ms
      return { now: testClockNow() }
    }),
  )
})
