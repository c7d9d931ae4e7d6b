/**
 * An organization's SAML 2.0 connection (one per organization, docs/enterprise.md): the identity
 * provider's entity id, SSO URL and signing certificates (typed in, or read from its metadata,
 * idp-metadata.ts), the role a person gets on first sign-in, the attribute names to read and the
 * groups that give other roles, whether unsolicited (IdP-initiated) responses are accepted, and
 * whether the connection is on. Reading needs `members:manage`, writing `owners:manage`.
 *
 * The service provider's own names are the gateway's (config `enterprise.gatewayOrigin`): the
 * entity id is the metadata URL, the ACS URL the one the gateway forwards.
 */
import { sql, type Kysely } from 'kysely'
import type { z } from 'zod'
import type { samlConnectionView } from '../../contract/enterprise'
import type { Database } from '../../db/schema'
import { FORBIDDEN, holds, NOT_FOUND, readActor, type Forbidden, type NotFound } from '../organizations/actor'
import { certificatePem, describeCertificate, parseIdpMetadata } from './idp-metadata'

export type ConnectionView = z.infer<typeof samlConnectionView>

export interface AttributeMapping {
  email?: string
  name?: string
  groups?: string
  groupRoles?: Record<string, string>
}

/** A connection as the SAML endpoints use it. */
export interface SamlConnection {
  id: number
  publicId: string
  orgId: number
  idpEntityId: string
  idpSsoUrl: string
  idpCerts: string[]
  defaultRole: string
  attributeMapping: AttributeMapping
  allowIdpInitiated: boolean
  enabled: boolean
  requireSso: boolean
  updatedAt: Date
}

/** The service provider's URLs for a connection, on the gateway's origin. */
export function spUrls(gatewayOrigin: string, connectionId: string) {
  const base = `${gatewayOrigin}/sso/saml/${connectionId}`
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` }
}

const SELECT = [
  'id',
  sql<string>`public_id::text`.as('publicId'),
  'org_id as orgId',
  'idp_entity_id as idpEntityId',
  'idp_sso_url as idpSsoUrl',
  'idp_certs as idpCerts',
  'default_role as defaultRole',
  'attribute_mapping as attributeMapping',
  'allow_idp_initiated as allowIdpInitiated',
  'enabled',
  'require_sso as requireSso',
  'updated_at as updatedAt',
] as const

function viewOf(c: SamlConnection, gatewayOrigin: string): ConnectionView {
  return {
    id: c.publicId,
    idpEntityId: c.idpEntityId,
    idpSsoUrl: c.idpSsoUrl,
    idpCertificates: c.idpCerts.map(describeCertificate),
    defaultRole: c.defaultRole,
    attributeMapping: c.attributeMapping,
    allowIdpInitiated: c.allowIdpInitiated,
    enabled: c.enabled,
    requireSso: c.requireSso,
    sp: spUrls(gatewayOrigin, c.publicId),
    updatedAt: new Date(c.updatedAt).toISOString(),
  }
}

const rowOf = (row: Record<string, unknown>): SamlConnection => {
  const parse = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T
  return { ...(row as unknown as SamlConnection), idpCerts: parse<string[]>(row['idpCerts']), attributeMapping: parse<AttributeMapping>(row['attributeMapping']) }
}

/** The enabled connection of that public id, or null (unknown and switched off answer alike). */
export async function loadEnabledConnection(db: Kysely<Database>, publicId: string): Promise<SamlConnection | null> {
  const row = await db.selectFrom('saml_connections').select(SELECT).where('public_id', '=', publicId).where('enabled', '=', true).executeTakeFirst()
  return row ? rowOf(row) : null
}

export async function getConnection(db: Kysely<Database>, input: { orgId: string; userId: number; gatewayOrigin: string }): Promise<{ ok: true; connection: ConnectionView | null } | NotFound | Forbidden> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'members:manage')) return FORBIDDEN
  const row = await db.selectFrom('saml_connections').select(SELECT).where('org_id', '=', actor.orgId).executeTakeFirst()
  return { ok: true, connection: row ? viewOf(rowOf(row), input.gatewayOrigin) : null }
}

export interface SetConnectionInput {
  orgId: string
  userId: number
  gatewayOrigin: string
  idpMetadataXml?: string
  idpEntityId?: string
  idpSsoUrl?: string
  idpCertificate?: string
  defaultRole: string
  attributeMapping: AttributeMapping
  allowIdpInitiated: boolean
  enabled: boolean
  requireSso: boolean
  now: number
}

export type SetConnectionFailure = NotFound | Forbidden | { ok: false; code: 'saml_metadata_invalid' | 'saml_certificate_invalid' | 'role_not_found' }

/** What the typed fields or the metadata give: the provider's names and certificates. */
function providerOf(input: SetConnectionInput): { ok: true; entityId: string; ssoUrl: string; certs: string[] } | { ok: false; code: 'saml_metadata_invalid' | 'saml_certificate_invalid' } {
  if (input.idpMetadataXml) {
    const meta = parseIdpMetadata(input.idpMetadataXml)
    return meta ? { ok: true, entityId: meta.entityId, ssoUrl: meta.ssoUrl, certs: meta.certificates } : { ok: false, code: 'saml_metadata_invalid' }
  }
  if (!input.idpEntityId || !input.idpSsoUrl || !input.idpCertificate) return { ok: false, code: 'saml_metadata_invalid' }
  const pem = certificatePem(input.idpCertificate)
  if (!pem) return { ok: false, code: 'saml_certificate_invalid' }
  return { ok: true, entityId: input.idpEntityId, ssoUrl: input.idpSsoUrl, certs: [pem] }
}

/** Creates or replaces the organization's connection (owners:manage). */
export async function setConnection(db: Kysely<Database>, input: SetConnectionInput): Promise<{ ok: true; connection: ConnectionView } | SetConnectionFailure> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  const provider = providerOf(input)
  if (!provider.ok) return provider
  const roles = new Set([input.defaultRole, ...Object.values(input.attributeMapping.groupRoles ?? {})].filter((r) => r !== 'admin' && r !== 'member'))
  if (roles.size > 0) {
    const found = await db.selectFrom('organization_roles').select(sql<string>`id::text`.as('id')).where('org_id', '=', actor.orgId).where(sql<boolean>`id::text in (select jsonb_array_elements_text(${JSON.stringify([...roles])}::jsonb))`).execute()
    if (found.length !== roles.size) return { ok: false, code: 'role_not_found' }
  }
  const values = {
    idp_entity_id: provider.entityId,
    idp_sso_url: provider.ssoUrl,
    idp_certs: JSON.stringify(provider.certs),
    default_role: input.defaultRole,
    attribute_mapping: JSON.stringify(input.attributeMapping),
    allow_idp_initiated: input.allowIdpInitiated,
    enabled: input.enabled,
    require_sso: input.requireSso,
    updated_at: new Date(input.now),
  }
  const row = await db
    .insertInto('saml_connections')
    .values({ org_id: actor.orgId, ...values })
    .onConflict((oc) => oc.column('org_id').doUpdateSet(values))
    .returning(SELECT)
    .executeTakeFirstOrThrow()
  return { ok: true, connection: viewOf(rowOf(row), input.gatewayOrigin) }
}
