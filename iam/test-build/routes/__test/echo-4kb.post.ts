import { defineEventHandler } from 'h3'
import { notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

/** Test-only: like /__test/echo under the 4kb limit of POST /auth/OAuth/:providerName. */
export default defineEventHandler((event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  return getJsonBody(event)
})
