/** GET /oauth/callback/:provider: the authorization response in the query (gateway.md, callback). */
import { defineEventHandler, getRequestURL } from 'h3'
import { handleCallback } from '../../../utils/oauth/handle-callback'

export default defineEventHandler((event) => handleCallback(event, new URLSearchParams(getRequestURL(event).search)))
