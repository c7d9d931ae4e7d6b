/**
 * Bodies of the management routes (spec "API token management"). Strict objects: an unknown key,
 * a wrong type or a missing required value is a schema mismatch (400 Bad Request).
 */
import { z } from 'zod'
import { MAX_NAME_LENGTH } from './create'
import { MAX_ALLOWED_IPS, toStoredIpList } from './ip-list'
import { PRIVILEGES } from './results'
import { PREFIX_PATTERN } from './token-format'
import { safeString } from '../../lib/text'

const MAX_EXPIRES_MS = 100 * 365 * 24 * 60 * 60 * 1000

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
