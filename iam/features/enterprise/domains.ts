/**
 * The domains an organization claims (docs/enterprise.md): an owner adds a name and gets a token
 * to publish as a TXT record, at `_identity-platform.<domain>` or at the domain itself; verifying
 * reads the TXT records (dns-txt.ts) and marks the domain verified when one holds the token. Only
 * a verified domain routes a sign-in to the organization's SAML connection or lets it link an
 * existing account. A domain is verified in one organization at most: the partial unique index of
 * migration 0019 decides a race between two, and the loser is told the domain is taken.
 *
 * Listing needs `members:manage` (owners and admins); adding, verifying and removing need
 * `owners:manage`: a verified domain lets the organization's identity provider sign in as the
 * accounts of its addresses, which is the owner's call (docs/enterprise.md, linking).
 */
import { randomBytes } from 'node:crypto'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { isUniqueViolation } from '../users/users-repo'
import { FORBIDDEN, holds, NOT_FOUND, readActor, type Forbidden, type NotFound } from '../organizations/actor'
import type { TxtLookup } from './dns-txt'
import { normalizeDomain, verificationRecordName, verificationValue } from './domain-name'

/** A claimed domain as the routes show it. */
export interface DomainView {
  id: string
  domain: string
  verified: boolean
  verifiedAt: string | null
  createdAt: string
  /** where and what to publish */
  txt: { name: string; apex: string; value: string }
}

interface DomainRow {
  public_id: string
  domain: string
  token: string
  verified_at: Date | null
  created_at: Date
}

const viewOf = (row: DomainRow): DomainView => ({
  id: row.public_id,
  domain: row.domain,
  verified: row.verified_at !== null,
  verifiedAt: row.verified_at ? new Date(row.verified_at).toISOString() : null,
  createdAt: new Date(row.created_at).toISOString(),
  txt: { name: verificationRecordName(row.domain), apex: row.domain, value: verificationValue(row.token) },
})

const COLUMNS = [sql<string>`public_id::text`.as('public_id'), 'domain', 'token', 'verified_at', 'created_at'] as const

export async function listDomains(db: Kysely<Database>, orgId: string, userId: number): Promise<{ ok: true; domains: DomainView[] } | NotFound | Forbidden> {
  const actor = await readActor(db, orgId, userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'members:manage')) return FORBIDDEN
  const rows = await db.selectFrom('org_domains').select(COLUMNS).where('org_id', '=', actor.orgId).orderBy('created_at').orderBy('domain').execute()
  return { ok: true, domains: rows.map(viewOf) }
}

export type AddDomainFailure = NotFound | Forbidden | { ok: false; code: 'domain_invalid' | 'domain_public_suffix' | 'domain_exists' | 'domain_limit' | 'domain_taken' }

export async function addDomain(
  db: Kysely<Database>,
  input: { orgId: string; userId: number; domain: string; maxPerOrg: number; now: number },
): Promise<{ ok: true; domain: DomainView } | AddDomainFailure> {
  const name = normalizeDomain(input.domain)
  if (!name.ok) return name
  return db.transaction().execute(async (trx) => {
    const actor = await readActor(trx, input.orgId, input.userId)
    if (!actor) return NOT_FOUND
    if (!holds(actor, 'owners:manage')) return FORBIDDEN
    // the organization's row locked: two adds at once count each other (the limit holds)
    await sql`select id from organizations where id = ${actor.orgId} for update`.execute(trx)
    const { count } = await trx.selectFrom('org_domains').select((eb) => eb.fn.countAll<number>().as('count')).where('org_id', '=', actor.orgId).executeTakeFirstOrThrow()
    if (Number(count) >= input.maxPerOrg) return { ok: false, code: 'domain_limit' } as const
    const verifiedElsewhere = await trx.selectFrom('org_domains').select('id').where('domain', '=', name.domain).where('verified_at', 'is not', null).where('org_id', '<>', actor.orgId).executeTakeFirst()
    if (verifiedElsewhere) return { ok: false, code: 'domain_taken' } as const
    // 128 bits: the value cannot be guessed ahead of the owner's publishing it
    const token = randomBytes(16).toString('base64url')
    const row = await trx
      .insertInto('org_domains')
      .values({ org_id: actor.orgId, domain: name.domain, token, created_at: new Date(input.now) })
      .onConflict((oc) => oc.columns(['org_id', 'domain']).doNothing())
      .returning(COLUMNS)
      .executeTakeFirst()
    if (!row) return { ok: false, code: 'domain_exists' } as const
    return { ok: true, domain: viewOf(row) } as const
  })
}

export type VerifyDomainFailure = NotFound | Forbidden | { ok: false; code: 'domain_not_found' | 'domain_taken' | 'domain_record_missing' | 'dns_unavailable' }

/**
 * Looks the token up in DNS and marks the domain verified. The lookup runs outside any
 * transaction (it may take seconds); the write is one statement, and the unique index on verified
 * domains refuses a second organization's verification even when both lookups succeeded at once.
 */
export async function verifyDomain(
  db: Kysely<Database>,
  lookup: TxtLookup,
  input: { orgId: string; userId: number; domainId: string; now: number },
): Promise<{ ok: true; domain: DomainView } | VerifyDomainFailure> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  const row = await db.selectFrom('org_domains').select(COLUMNS).where('org_id', '=', actor.orgId).where(sql<boolean>`public_id::text = ${input.domainId}`).executeTakeFirst()
  if (!row) return { ok: false, code: 'domain_not_found' }
  if (row.verified_at) return { ok: true, domain: viewOf(row) }
  const expected = verificationValue(row.token)
  let found = false
  try {
    for (const name of [verificationRecordName(row.domain), row.domain]) {
      const records = await lookup(name)
      if (records.some((record) => record.trim() === expected)) {
        found = true
        break
      }
    }
  } catch {
    return { ok: false, code: 'dns_unavailable' }
  }
  if (!found) return { ok: false, code: 'domain_record_missing' }
  try {
    const updated = await db
      .updateTable('org_domains')
      .set({ verified_at: new Date(input.now) })
      .where('org_id', '=', actor.orgId)
      .where('domain', '=', row.domain)
      .returning(COLUMNS)
      .executeTakeFirst()
    if (!updated) return { ok: false, code: 'domain_not_found' }
    return { ok: true, domain: viewOf(updated) }
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, code: 'domain_taken' }
    throw error
  }
}

export async function removeDomain(db: Kysely<Database>, input: { orgId: string; userId: number; domainId: string }): Promise<{ ok: true } | NotFound | Forbidden | { ok: false; code: 'domain_not_found' }> {
  const actor = await readActor(db, input.orgId, input.userId)
  if (!actor) return NOT_FOUND
  if (!holds(actor, 'owners:manage')) return FORBIDDEN
  const gone = await db.deleteFrom('org_domains').where('org_id', '=', actor.orgId).where(sql<boolean>`public_id::text = ${input.domainId}`).returning('id').executeTakeFirst()
  return gone ? { ok: true } : { ok: false, code: 'domain_not_found' }
}

/** Whether organization `orgId` proved `domain` (a DNS-verified row): only then may it link or make accounts of that domain. */
export async function domainVerifiedBy(db: Kysely<Database>, orgId: number, domain: string): Promise<boolean> {
  const row = await db.selectFrom('org_domains').select('id').where('org_id', '=', orgId).where('domain', '=', domain).where('verified_at', 'is not', null).executeTakeFirst()
  return row !== undefined
}

/** The connection a verified domain routes to: its public id, or null when the domain routes nowhere (not verified, or no enabled connection). */
export async function connectionForDomain(db: Kysely<Database>, domain: string): Promise<{ connectionId: string; requireSso: boolean } | null> {
  const row = await db
    .selectFrom('org_domains as d')
    .innerJoin('saml_connections as c', 'c.org_id', 'd.org_id')
    .select([sql<string>`c.public_id::text`.as('connectionId'), 'c.require_sso as requireSso'])
    .where('d.domain', '=', domain)
    .where('d.verified_at', 'is not', null)
    .where('c.enabled', '=', true)
    .executeTakeFirst()
  return row ?? null
}
