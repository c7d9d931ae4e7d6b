/**
 * Bodies of the management routes (docs/api-tokens.md). Strict objects: an unknown key,
 * a wrong type or a missing required value is a schema mismatch (400 Bad Request).
 */
import { z } from 'zod'
import { safeString } from './text'
import { MAX_ALLOWED_IPS, toStoredIpList } from './ip-list'

export const MAX_NAME_LENGTH = 100
/** The five privileges a token can carry; db/schema's Privilege type is checked against it in features/api-tokens/results.ts. */
export const PRIVILEGES = ['demo', 'restricted', 'protected', 'full', 'custom'] as const
/** A token prefix, 1-16 of [A-Za-z0-9-]: no `_`, which separates the token's components. */
export const PREFIX_PATTERN = /^[A-Za-z0-9-]{1,16}$/

/** 100 years: keeps expires_at a valid timestamp whatever the caller passes. */
export const MAX_EXPIRES_MS = 100 * 365 * 24 * 60 * 60 * 1000

const privilege = z.enum(PRIVILEGES)
const name = safeString().min(1).max(MAX_NAME_LENGTH).refine((value) => value.trim().length > 0)
const ipv4List = z
  .array(safeString().max(64))
  .max(MAX_ALLOWED_IPS)
  .refine((list) => toStoredIpList(list) !== undefined, 'IPv4 addresses only')

const tokenRef = {
  tokenId: z.number().int().positive().max(2_147_483_647),
  publicIdentifier: safeString().min(1).max(64),
  name,
}

export const newTokenBody = z.strictObject({
  privilege,
  name,
  prefix: safeString().regex(PREFIX_PATTERN).optional(),
  expires: z.number().int().positive().max(MAX_EXPIRES_MS).nullable().optional(),
  ipv4: ipv4List.optional(),
})

export const tokenRefBody = z.strictObject(tokenRef)

export const ipRestrictionBody = z.strictObject({ ...tokenRef, ipv4: ipv4List.optional() })

export const privilegeUpdateBody = z.strictObject({ ...tokenRef, newPrivilege: privilege })

/** POST /api/manage/revoke-all: an explicit `{ confirm: true }`, so no stray request ends every token. */
export const revokeAllBody = z.strictObject({ confirm: z.literal(true) })
