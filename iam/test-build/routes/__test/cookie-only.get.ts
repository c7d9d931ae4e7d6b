import { defineEventHandler } from 'h3'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/** Test-only: a cookie-only GET (like GET /secret/accesstoken/metadata) to prove its rules. */
export default defineEventHandler(() => {
  if (!testRoutesEnabled(process.env)) notFound()
  return { ok: true }
})
