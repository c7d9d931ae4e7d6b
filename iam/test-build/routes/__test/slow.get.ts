import { defineEventHandler, getQuery } from 'h3'
import { notFound } from '../../../http/respond'
import { testRoutesEnabled } from '../../enabled'

/** Test-only: answers `{ ok: true }` after `?ms=` (at most 10 s): a request still running at SIGTERM. */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const ms = Math.min(10_000, Math.max(0, Number(getQuery(event).ms) || 0))
  await new Promise((resolve) => setTimeout(resolve, ms))
  return { ok: true }
})
