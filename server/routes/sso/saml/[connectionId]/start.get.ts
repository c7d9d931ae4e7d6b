/** GET /sso/saml/:connectionId/start?returnTo=/path: to the identity provider (server/utils/sso/saml-flow.ts). */
import { defineEventHandler } from 'h3'
import { startSamlSignIn } from '../../../../utils/sso/saml-flow'

export default defineEventHandler((event) => startSamlSignIn(event))
