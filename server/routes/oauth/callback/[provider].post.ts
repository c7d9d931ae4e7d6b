/**
 * POST /oauth/callback/:provider: the authorization response as a form body (response_mode=form_post,
 * OAuth 2.0 Form Post Response Mode). Only application/x-www-form-urlencoded bodies up to 16 kB are
 * read; anything else is an empty response (the validation step then redirects missing_code).
 */
import { defineEventHandler, getRequestHeader, readRawBody } from 'h3'
import { handleCallback } from '../../../utils/oauth/handle-callback'

const MAX_FORM_BYTES = 16 * 1024

export default defineEventHandler(async (event) => {
  const type = getRequestHeader(event, 'content-type') ?? ''
  const length = Number(getRequestHeader(event, 'content-length') ?? '0')
  let params = new URLSearchParams()
  if (/^application\/x-www-form-urlencoded\b/i.test(type) && length <= MAX_FORM_BYTES) {
    const raw = (await readRawBody(event, 'utf8')) ?? ''
    if (raw.length <= MAX_FORM_BYTES) params = new URLSearchParams(raw)
  }
  return handleCallback(event, params)
})
