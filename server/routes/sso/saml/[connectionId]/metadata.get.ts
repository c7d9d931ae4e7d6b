/** GET /sso/saml/:connectionId/metadata: the service provider metadata (server/utils/sso/saml-flow.ts). */
import { defineEventHandler } from 'h3'
import { samlMetadata } from '../../../../utils/sso/saml-flow'

export default defineEventHandler((event) => samlMetadata(event))
