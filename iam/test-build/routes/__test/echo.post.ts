import { defineEventHandler } from 'h3'
import { notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

/** Test-only (IAM_TEST_ROUTES=1, not production): answers the body the JSON rules parsed. */
export default defineEventHandler((event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  return getJsonBody(event)
})
