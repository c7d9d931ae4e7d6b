import { defineEventHandler } from 'h3'
import { z } from 'zod'
import { useIam } from '../../../context'
import { CLIENT_AUTH_METHODS, ClientInputError, createClient, GRANT_ALIASES, type ClientGrantType } from '../../../features/oidc/clients'
import { httpFail, notFound } from '../../../http/respond'
import { getJsonBody } from '../../../http/request'
import { testRoutesEnabled } from '../../enabled'

const Body = z
  .object({
    name: z.string(),
    redirectUris: z.array(z.string()).default([]),
    postLogoutRedirectUris: z.array(z.string()).optional(),
    public: z.boolean().optional(),
    authMethod: z.enum(CLIENT_AUTH_METHODS).optional(),
    firstParty: z.boolean().optional(),
    grants: z.array(z.string()).optional(),
    scope: z.string().optional(),
    backchannelLogoutUri: z.string().optional(),
    /** a chosen id, for a client the IAM's config names (`oidc.resourceServers[].introspectionClients`) */
    clientId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).optional(),
  })
  .strict()

/**
 * Test-only (IAM_TEST_ROUTES=1, not production): registers an OpenID client as `clients:create`
 * does, for tests whose embedded database the CLI cannot open while the IAM holds it.
 */
export default defineEventHandler(async (event) => {
  if (!testRoutesEnabled(process.env)) notFound()
  const body = Body.safeParse(getJsonBody(event))
  if (!body.success) httpFail(400, { ok: false, reason: body.error.message, code: 'validation_failed' })
  const { grants, clientId, ...rest } = body.data
  try {
    const ctx = useIam()
    return await createClient(ctx, { ...rest, grants: grants?.map((g) => GRANT_ALIASES[g] ?? (g as ClientGrantType)) }, clientId)
  } catch (error) {
    if (error instanceof ClientInputError) httpFail(400, { ok: false, reason: error.message, code: 'validation_failed' })
    throw error
  }
})
