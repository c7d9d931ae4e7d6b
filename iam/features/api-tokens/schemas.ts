/**
 * Bodies of the management routes (spec "API token management"). Strict objects: an unknown key,
 * a wrong type or a missing required value is a schema mismatch (400 Bad Request).
 */
import { z } from 'zod'
import { MAX_NAME_LENGTH } from './create'
import { MAX_ALLOWED_IPS, toStoredIpList } from './ip-list'
import { PRIVILEGES } from './results'
import { PREFIX_PATTERN } from './token-format'

const MAX_EXPIRES_MS = 100 * 365 * 24 * 60 * 60 * 1000

const privilege = z.enum(PRIVILEGES)
const name = z.string().min(1).max(MAX_NAME_LENGTH).refine((value) => value.trim().length > 0)
const ipv4List = z
  .array(z.string().max(64))
  .max(MAX_ALLOWED_IPS)
  .refine((list) => toStoredIpList(list) !== undefined, 'IPv4 addresses only')

const tokenRef = {
  tokenId: z.number().int().positive().max(2_147_483_647),
  publicIdentifier: z.string().min(1).max(64),
  name,
}

export const newTokenBody = z.strictObject({
  privilege,
  name,
  prefix: z.string().regex(PREFIX_PATTERN).optional(),
  expires: z.number().int().positive().max(MAX_EXPIRES_MS).nullable().optional(),
  ipv4: ipv4List.optional(),
})

export const tokenRefBody = z.strictObject(tokenRef)

export const ipRestrictionBody = z.strictObject({ ...tokenRef, ipv4: ipv4List.optional() })

export const privilegeUpdateBody = z.strictObject({ ...tokenRef, newPrivilege: privilege })

/** POST /api/manage/revoke-all: an explicit `{ confirm: true }`, so no stray request ends every token. */
export const revokeAllBody = z.strictObject({ confirm: z.literal(true) })
