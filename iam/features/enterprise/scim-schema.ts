/**
 * The SCIM 2.0 documents this service answers with (RFC 7643: the User and Group resources, the
 * ServiceProviderConfig, ResourceTypes and Schemas; RFC 7644 section 3.12 the error body), and the
 * parsing of the User and Group bodies a provider sends. Pure: no database, no HTTP.
 */
import { z } from 'zod'

export const SCIM_SCHEMAS = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const

/** RFC 7644 section 3.12, table 9: the `scimType` values this service answers with. */
export type ScimType = 'invalidFilter' | 'tooMany' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidVers'

/** Largest `count` a list answers (RFC 7644 section 3.4.2.4 lets the service cap it; ServiceProviderConfig says so). */
export const MAX_RESULTS = 200

/** The service's documents are served under this base URL (the gateway's origin + /scim/v2). */
export interface ScimBase {
  baseUrl: string
}

export interface ScimUserRow {
  scimId: string
  externalId: string | null
  email: string
  accountName: string
  givenName: string | null
  familyName: string | null
  formattedName: string | null
  displayName: string | null
  active: boolean
  version: number
  createdAt: Date
  updatedAt: Date
}

export interface ScimUserResource {
  schemas: string[]
  id: string
  externalId?: string
  userName: string
  name: { givenName?: string; familyName?: string; formatted?: string }
  displayName: string
  emails: Array<{ value: string; type: string; primary: boolean }>
  active: boolean
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string }
}

/** RFC 7644 section 3.14: a weak ETag from the row's version counter. */
export const etagOf = (version: number): string => `W/"${version}"`

/** A user row as RFC 7643 section 4.1 shapes it; `userName` and the one e-mail are the account's address. */
export function userResource(row: ScimUserRow, base: ScimBase): ScimUserResource {
  const name: ScimUserResource['name'] = {}
  if (row.givenName !== null) name.givenName = row.givenName
  if (row.familyName !== null) name.familyName = row.familyName
  if (row.formattedName !== null) name.formatted = row.formattedName
  return {
    schemas: [SCIM_SCHEMAS.user],
    id: row.scimId,
    ...(row.externalId === null ? {} : { externalId: row.externalId }),
    userName: row.email,
    name,
    displayName: row.displayName ?? row.accountName,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.active,
    meta: {
      resourceType: 'User',
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: `${base.baseUrl}/Users/${row.scimId}`,
      version: etagOf(row.version),
    },
  }
}

export interface ScimGroupRow {
  /** 'admin', 'member' or a custom role's id */
  id: string
  displayName: string
  externalId: string | null
  members: Array<{ scimId: string; email: string }>
  createdAt: Date | null
}

export function groupResource(row: ScimGroupRow, base: ScimBase) {
  const created = (row.createdAt ?? new Date(0)).toISOString()
  return {
    schemas: [SCIM_SCHEMAS.group],
    id: row.id,
    ...(row.externalId === null ? {} : { externalId: row.externalId }),
    displayName: row.displayName,
    members: row.members.map((m) => ({ value: m.scimId, display: m.email, $ref: `${base.baseUrl}/Users/${m.scimId}` })),
    meta: { resourceType: 'Group' as const, created, lastModified: created, location: `${base.baseUrl}/Groups/${row.id}` },
  }
}

/** RFC 7644 section 3.4.2: a page of resources. */
export const listResponse = (resources: unknown[], totalResults: number, startIndex: number) => ({
  schemas: [SCIM_SCHEMAS.listResponse],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
})

/** RFC 7644 section 3.12. `status` is a string there. */
export const errorBody = (status: number, detail: string, scimType?: ScimType) => ({
  schemas: [SCIM_SCHEMAS.error],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
})

/** RFC 7643 section 5: what this service supports. */
export const serviceProviderConfig = (base: ScimBase) => ({
  schemas: [SCIM_SCHEMAS.serviceProviderConfig],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    { type: 'oauthbearertoken', name: 'Bearer token', description: 'The organization\'s SCIM token in the Authorization header', primary: true },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base.baseUrl}/ServiceProviderConfig` },
})

export const resourceTypes = (base: ScimBase) => [
  {
    schemas: [SCIM_SCHEMAS.resourceType],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: SCIM_SCHEMAS.user,
    meta: { resourceType: 'ResourceType', location: `${base.baseUrl}/ResourceTypes/User` },
  },
  {
    schemas: [SCIM_SCHEMAS.resourceType],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    schema: SCIM_SCHEMAS.group,
    meta: { resourceType: 'ResourceType', location: `${base.baseUrl}/ResourceTypes/Group` },
  },
]

const attribute = (name: string, type: string, more: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...more,
})

/** RFC 7643 section 7: the attributes this service keeps (a subset of section 8.7.1). */
export const schemas = (base: ScimBase) => [
  {
    schemas: [SCIM_SCHEMAS.schema],
    id: SCIM_SCHEMAS.user,
    name: 'User',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server', mutability: 'immutable' }),
      attribute('name', 'complex', {
        subAttributes: [attribute('givenName', 'string'), attribute('familyName', 'string'), attribute('formatted', 'string')],
      }),
      attribute('displayName', 'string'),
      attribute('emails', 'complex', { multiValued: true, mutability: 'readOnly', subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')] }),
      attribute('active', 'boolean'),
      attribute('externalId', 'string', { caseExact: true }),
    ],
    meta: { resourceType: 'Schema', location: `${base.baseUrl}/Schemas/${SCIM_SCHEMAS.user}` },
  },
  {
    schemas: [SCIM_SCHEMAS.schema],
    id: SCIM_SCHEMAS.group,
    name: 'Group',
    attributes: [
      attribute('displayName', 'string', { required: true, uniqueness: 'server' }),
      attribute('members', 'complex', { multiValued: true, subAttributes: [attribute('value', 'string', { mutability: 'immutable' }), attribute('display', 'string', { mutability: 'readOnly' })] }),
      attribute('externalId', 'string', { caseExact: true }),
    ],
    meta: { resourceType: 'Schema', location: `${base.baseUrl}/Schemas/${SCIM_SCHEMAS.group}` },
  },
]

const text = (max: number) => z.string().trim().min(1).max(max)
const optionalText = (max: number) => z.union([z.string().trim().max(max), z.null()]).optional()

/**
 * A User body (POST, PUT, or the resource a PATCH produced). Unknown attributes are ignored, as
 * RFC 7644 section 3.3 lets a service do with attributes it does not keep; `emails` is read-only
 * here (the address is the account's, `userName`).
 */
export const userInput = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(SCIM_SCHEMAS.user), 'schemas must name the User schema'),
  userName: z.string().trim().toLowerCase().min(3).max(254).regex(/^[^\s@]+@[^\s@]+$/, 'userName is an e-mail address'),
  externalId: optionalText(255),
  displayName: optionalText(200),
  name: z
    .looseObject({ givenName: optionalText(100), familyName: optionalText(100), formatted: optionalText(200) })
    .optional(),
  // Entra ID sends `"False"` in PATCH values: a boolean spelled as a string is taken as the boolean
  active: z.preprocess((v) => (typeof v === 'string' && /^(true|false)$/i.test(v) ? v.toLowerCase() === 'true' : v), z.boolean()).optional(),
})
export type UserInput = z.infer<typeof userInput>

export const groupMember = z.looseObject({ value: z.string().max(100) })

/** A Group body (POST, PUT, or the resource a PATCH produced). */
export const groupInput = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(SCIM_SCHEMAS.group), 'schemas must name the Group schema'),
  displayName: text(50),
  externalId: optionalText(255),
  members: z.array(groupMember).max(10_000).optional(),
})
export type GroupInput = z.infer<typeof groupInput>

/** RFC 7644 section 3.5.2: a PatchOp body. */
export const patchInput = z.looseObject({
  schemas: z.array(z.string()).refine((s) => s.includes(SCIM_SCHEMAS.patchOp), 'schemas must name the PatchOp message'),
  Operations: z
    .array(
      z.looseObject({
        op: z.string().transform((op) => op.toLowerCase()).pipe(z.enum(['add', 'remove', 'replace'])),
        path: z.string().max(500).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(1000),
})
export type PatchInput = z.infer<typeof patchInput>

/** The first problem of a failed parse, as one sentence for `detail`. */
export const firstIssue = (error: z.ZodError): string => {
  const issue = error.issues[0]
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body'
}
