/** POST /sso/saml/:connectionId/acs: the identity provider's SAMLResponse (server/utils/sso/saml-flow.ts). */
import { defineEventHandler } from 'h3'
import { consumeSamlResponse } from '../../../../utils/sso/saml-flow'

export default defineEventHandler((event) => consumeSamlResponse(event))
