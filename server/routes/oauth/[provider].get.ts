/** GET /oauth/:provider: starts the authorization code flow (gateway.md, redirect handler). */
import { defineEventHandler } from 'h3'
import { startLogin } from '../../utils/oauth/start-login'

export default defineEventHandler((event) => startLogin(event))
