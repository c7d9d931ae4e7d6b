/**
 * The scope of an organization's webhook routes (/orgs/:orgId/webhooks/**): the organization's own
 * endpoints, for its owners. An endpoint decides where the organization's events go and holds the
 * secret that signs them, so only a member holding `owners:manage` (owners alone, contract/
 * org-permissions.ts) reaches it, as with the organization's SCIM token.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { FORBIDDEN, holds, NOT_FOUND, readActor, type Forbidden, type NotFound } from '../organizations/actor'
import type { EndpointScope } from './endpoints-repo'

export async function organizationScope(db: Kysely<Database>, orgId: string, userId: number): Promise<{ ok: true; scope: EndpointScope } | NotFound | Forbidden> {
  const actor = await readActor(db, orgId, userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  return { ok: true, scope: { kind: 'organization', organizationId: actor.id } }
}
