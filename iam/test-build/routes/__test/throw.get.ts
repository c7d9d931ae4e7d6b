import { defineEventHandler, getQuery, setResponseStatus } from 'h3'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/**
 * Test-only: an unhandled error whose message looks like a secret, to prove the final handler
 * never echoes it. `?status=N` sets the response status first (the final handler keeps it when above 415, iam/error.ts).
 */
export default defineEventHandler((event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const status = Number(getQuery(event).status)
  if (Number.isInteger(status) && status >= 200 && status < 600) setResponseStatus(event, status)
  throw new Error('connect failed: postgres://iam:S3cr3t-Pa55w0rd@db.internal/iam')
})
