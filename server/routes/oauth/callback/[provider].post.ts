/**
 * POST /oauth/callback/:provider: the authorization response as a form body (response_mode=form_post,
 * OAuth 2.0 Form Post Response Mode). Only application/x-www-form-urlencoded bodies are read;
 * anything else is an empty response (the validation step then redirects missing_code). The body
 * is already buffered within CALLBACK_BODY_LIMIT_BYTES by middleware/15.body-limit.ts (413 beyond).
 */
import { defineEventHandler, getRequestHeader, readRawBody } from 'h3'
import { handleCallback } from '../../../utils/oauth/handle-callback'

export default defineEventHandler(async (event) => {
  const type = getRequestHeader(event, 'content-type') ?? ''
  let params = new URLSearchParams()
  if (/^application\/x-www-form-urlencoded\b/i.test(type)) params = new URLSearchParams((await readRawBody(event, 'utf8')) ?? '')
  return handleCallback(event, params)
})
