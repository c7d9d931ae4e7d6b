/** A request id and one log line per request: server/utils/request-log.ts. */
import { defineEventHandler } from 'h3'
import { logRequest } from '../utils/request-log'

export default defineEventHandler((event) => {
  logRequest(event)
})
