/**
 * An organization's SCIM connection: the bearer token its identity provider sends (RFC 7644
 * section 2: any HTTP authentication; RFC 6750 bearer tokens here). Owners create, rotate and
 * revoke it (`owners:manage`: the token can deactivate any member, owners included).
 *
 * The token is `scim_` + 43 base64url characters (256 random bits) and is shown once. Only its
 * SHA-256 is stored: with 256 bits of entropy there is no dictionary to slow down, and a plain hash
 * keeps the lookup on an index. The lookup is by hash, and the stored hash is compared again in
 * constant time, so the answer's timing says nothing about how much of a guess matched.
 *
 * Rotation replaces the hash in the connection's row: the old token stops with the statement that
 * writes the new one. Revoking deletes the row.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { FORBIDDEN, holds, lockActor, NOT_FOUND, readActor, type Forbidden, type NotFound } from '../organizations/actor'
import { recordScimEvent } from './scim-events'

const TOKEN_PREFIX = 'scim_'
const TOKEN_SHAPE = /^scim_[A-Za-z0-9_-]{43}$/

export const hashScimToken = (token: string): string => createHash('sha256').update(token).digest('hex')

/** A new token: the prefix says what it is to a secret scanner and to a person reading a config. */
export const newScimToken = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url')

export interface ScimConnectionView {
  /** the token's last four characters */
  hint: string
  createdAt: string
  rotatedAt: string | null
  lastUsedAt: string | null
}

type ConnectionRow = { token_hint: string; created_at: Date | string; rotated_at: Date | string | null; last_used_at: Date | string | null }

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString())
const viewOf = (row: ConnectionRow): ScimConnectionView => ({
  hint: row.token_hint,
  createdAt: new Date(row.created_at).toISOString(),
  rotatedAt: iso(row.rotated_at),
  lastUsedAt: iso(row.last_used_at),
})

type Input = { orgId: string; userId: number; now: number }

/** The connection of the organization, or null when it has none (owners:manage). */
export async function readScimConnection(db: Kysely<Database>, input: Omit<Input, 'now'>): Promise<{ ok: true; connection: ScimConnectionView | null } | NotFound | Forbidden> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  const row = await db.selectFrom('scim_connections').select(['token_hint', 'created_at', 'rotated_at', 'last_used_at']).where('org_id', '=', actor.orgId).executeTakeFirst()
  return { ok: true, connection: row ? viewOf(row) : null }
}

export type ScimTokenResult = { ok: true; token: string; connection: ScimConnectionView } | NotFound | Forbidden | { ok: false; code: 'exists' | 'none' }

/**
 * Creates the organization's token (`mode: 'create'`, refused when one exists) or replaces it
 * (`mode: 'rotate'`, refused when none exists). One transaction, under the organization's lock.
 */
export async function issueScimToken(db: Kysely<Database>, input: Input & { mode: 'create' | 'rotate' }): Promise<ScimTokenResult> {
  const token = newScimToken()
  const at = new Date(input.now)
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'owners:manage')) return FORBIDDEN
    const values = { token_hash: hashScimToken(token), token_hint: token.slice(-4) }
    const row =
      input.mode === 'create'
        ? await trx
            .insertInto('scim_connections')
            .values({ org_id: actor.orgId, ...values, created_by: input.userId, created_at: at })
            .onConflict((oc) => oc.column('org_id').doNothing())
            .returning(['token_hint', 'created_at', 'rotated_at', 'last_used_at'])
            .executeTakeFirst()
        : await trx
            .updateTable('scim_connections')
            .set({ ...values, rotated_at: at })
            .where('org_id', '=', actor.orgId)
            .returning(['token_hint', 'created_at', 'rotated_at', 'last_used_at'])
            .executeTakeFirst()
    if (!row) return { ok: false, code: input.mode === 'create' ? 'exists' : 'none' } as const
    await recordScimEvent(trx, { orgId: actor.orgId, at, action: input.mode === 'create' ? 'token.created' : 'token.rotated', target: null, details: { by: input.userId } })
    return { ok: true, token, connection: viewOf(row) } as const
  })
}

/** Ends the organization's connection: its token stops at once. */
export async function revokeScimToken(db: Kysely<Database>, input: Input): Promise<{ ok: true } | NotFound | Forbidden | { ok: false; code: 'none' }> {
  return db.transaction().execute(async (trx) => {
    const actor = await lockActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'owners:manage')) return FORBIDDEN
    const gone = await trx.deleteFrom('scim_connections').where('org_id', '=', actor.orgId).returning('org_id').executeTakeFirst()
    if (!gone) return { ok: false, code: 'none' } as const
    await recordScimEvent(trx, { orgId: actor.orgId, at: new Date(input.now), action: 'token.revoked', target: null, details: { by: input.userId } })
    return { ok: true } as const
  })
}

/** The organization a SCIM request acts for. */
export interface ScimTenant {
  /** organizations.id */
  orgId: number
  /** organizations.public_id */
  orgPublicId: string
}

/** How often the connection's `last_used_at` is written at most: a provider's sync must not write on every read. */
const LAST_USED_EVERY_MS = 60_000

/**
 * The organization whose token `authorization` carries (`Bearer scim_...`), or null. Every SCIM
 * statement is then scoped to that organization's id: a token names one organization and nothing
 * else can be reached with it.
 */
export async function authenticateScimToken(db: Kysely<Database>, authorization: string | undefined, now: number): Promise<ScimTenant | null> {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '')
  const token = match?.[1]
  if (!token || !TOKEN_SHAPE.test(token)) return null
  const hash = hashScimToken(token)
  const row = await db
    .selectFrom('scim_connections as c')
    .innerJoin('organizations as o', 'o.id', 'c.org_id')
    .select(['c.org_id as orgId', sql<string>`o.public_id::text`.as('orgPublicId'), 'c.token_hash as tokenHash'])
    .where('c.token_hash', '=', hash)
    .executeTakeFirst()
  if (!row || !timingSafeEqual(Buffer.from(row.tokenHash, 'hex'), Buffer.from(hash, 'hex'))) return null
  const at = new Date(now)
  await db
    .updateTable('scim_connections')
    .set({ last_used_at: at })
    .where('org_id', '=', row.orgId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now - LAST_USED_EVERY_MS))]))
    .execute()
  return { orgId: row.orgId, orgPublicId: row.orgPublicId }
}
