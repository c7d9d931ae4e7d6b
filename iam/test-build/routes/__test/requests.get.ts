import { defineEventHandler } from 'h3'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'
import { requestCounter } from '../../lib/request-counter'

/** Test-only: `{ received, inFlight }`, so a test knows its requests reached the server before it acts. */
export default defineEventHandler(() => {
  if (!testRoutesEnabled(process.env)) notFound()
  return { ...requestCounter }
})
