import type { NitroErrorHandler } from 'nitropack/types'
import { send, setResponseHeader, setResponseStatus } from 'h3'

// Placeholder final handler; replaced by the platform error handler.
export default (function errorHandler(error, event) {
  setResponseStatus(event, error.statusCode || 500)
  setResponseHeader(event, 'content-type', 'application/json')
  return send(event, JSON.stringify({ error: error.statusCode === 404 ? "The page you are looking for doesn't exists" : 'Internal Server Error' }))
}) satisfies NitroErrorHandler
