/** Security headers on every answer: server/utils/security-headers.ts. */
import { defineEventHandler } from 'h3'
import { setSecurityHeaders } from '../utils/security-headers'

export default defineEventHandler((event) => {
  setSecurityHeaders(event)
})
