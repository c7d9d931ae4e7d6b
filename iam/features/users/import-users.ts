/**
 * Users brought in from another system: one JSON object per line (email, name?, emailVerified?,
 * passwordHash?, createdAt?, externalId?). Read as a stream and written in batches, each batch one
 * `INSERT ... ON CONFLICT DO NOTHING RETURNING`: every user is one row of one statement, so no
 * user is ever half in, and an address that already has an account (whatever its case) is skipped
 * and reported, never overwritten. Nothing is hashed here: a password hash is checked and kept in
 * its stored form (imported-hashes.ts) and replaced by our Argon2id at the owner's next sign-in.
 * A user without a hash signs in through a password reset or a provider.
 *
 * An external id (the account's id in the old system) names one account (a unique index,
 * migration 0013): a line whose id another account holds, or an earlier line of the file took, is
 * refused. An existing account keeps the id it has, whatever the line says (`external_id_differs`):
 * the import never writes to an account it did not create, and an account made here under the
 * same address need not be the old system's person (someone may have signed up with the address
 * first), so attaching the old system's id to it could hand that person's records to another.
 *
 * A bad line is reported with its number and reason and the rest goes in. A dry run reads the
 * same lines and asks the database which addresses and external ids exist, and writes nothing.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { isEmailShape, normalizeEmail } from '../email-checks/email-checks'
import { parseImportedHash, type SourceFormat } from '../passwords/imported-hashes'
import { recordSecurityEvent } from '../security-events/repository'
import { checkExternalId } from './external-id'

export const IMPORT_BATCH_SIZE = 1000
/** How many bad or skipped lines a summary lists one by one (the counts are always whole). */
const LISTED_MAX = 1000
const NAME_MAX = 200

export interface ImportLineProblem {
  line: number
  reason: string
}

export interface ImportSkipped {
  line: number
  email: string
  /**
   * `account_exists`: the address has an account, left as it is; `external_id_differs`: it has one
   * whose external id (none, or another) is not the line's, and keeps its own; `duplicate_in_file`:
   * an earlier line has the address
   */
  reason: 'account_exists' | 'external_id_differs' | 'duplicate_in_file'
}

export interface ImportSummary {
  dryRun: boolean
  /** non-empty lines read */
  lines: number
  /** accounts created (a dry run: that would be created) */
  imported: number
  skipped: number
  invalid: number
  /** imported (or, in a dry run, importable) users by the format of their password hash; `none`: no hash */
  formats: Partial<Record<SourceFormat | 'none', number>>
  /** the first of them, in line order */
  invalidLines: ImportLineProblem[]
  skippedLines: ImportSkipped[]
}

interface Row {
  line: number
  email: string
  name: string
  passwordHash: string | null
  format: SourceFormat | 'none'
  emailVerified: boolean
  createdAt: Date
  externalId: string | null
}

type Checked = { ok: true; row: Row } | { ok: false; reason: string }

const KNOWN_KEYS = new Set(['email', 'name', 'emailVerified', 'passwordHash', 'createdAt', 'externalId'])

/** One line, checked; `now` stands in for a missing createdAt. */
export function checkImportLine(text: string, line: number, now: Date): Checked {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { ok: false, reason: 'not valid JSON' }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' }
  const input = value as Record<string, unknown>
  const unknown = Object.keys(input).find((key) => !KNOWN_KEYS.has(key))
  if (unknown !== undefined) return { ok: false, reason: `unknown field ${unknown}` }
  if (typeof input.email !== 'string') return { ok: false, reason: 'email is missing' }
  const email = normalizeEmail(input.email)
  if (!isEmailShape(email)) return { ok: false, reason: 'email is not an email address' }
  if (input.name !== undefined && input.name !== null && typeof input.name !== 'string') return { ok: false, reason: 'name must be a string' }
  const name = typeof input.name === 'string' ? input.name.trim() : ''
  if (name.length > NAME_MAX) return { ok: false, reason: `name is longer than ${NAME_MAX} characters` }
  if (input.emailVerified !== undefined && typeof input.emailVerified !== 'boolean') return { ok: false, reason: 'emailVerified must be true or false' }
  let createdAt = now
  if (input.createdAt !== undefined && input.createdAt !== null) {
    const at = typeof input.createdAt === 'string' || typeof input.createdAt === 'number' ? new Date(input.createdAt) : null
    if (!at || Number.isNaN(at.getTime()) || at.getTime() > now.getTime()) return { ok: false, reason: 'createdAt must be a past date (ISO 8601 or epoch milliseconds)' }
    createdAt = at
  }
  let passwordHash: string | null = null
  let format: Row['format'] = 'none'
  if (input.passwordHash !== undefined && input.passwordHash !== null) {
    const parsed = parseImportedHash(input.passwordHash)
    if (!parsed.ok) return { ok: false, reason: `passwordHash: ${parsed.reason}` }
    passwordHash = parsed.stored
    format = parsed.format
  }
  const external = checkExternalId(input.externalId)
  if (!external.ok) return external
  return { ok: true, row: { line, email, name, passwordHash, format, emailVerified: input.emailVerified === true, createdAt, externalId: external.externalId } }
}

/** What became of one line of a batch. */
type Outcome = { created: true } | { skipped: ImportSkipped['reason'] } | { refused: string }

const CREATED: Outcome = { created: true }
/** The existing accounts a batch meets: by lower-cased address, and by external id. */
type Existing = { byEmail: Map<string, string | null>; externalIds: Set<string> }

/** The accounts that hold an address or an external id of `rows`. */
async function existingOf(db: Kysely<Database>, rows: Row[]): Promise<Existing> {
  const keys = rows.map((row) => row.email.toLowerCase())
  const ids = rows.flatMap((row) => (row.externalId === null ? [] : [row.externalId]))
  const found = await db
    .selectFrom('users')
    .select([sql<string>`lower(email)`.as('key'), 'external_id'])
    .where((eb) => (ids.length ? eb.or([eb(sql<string>`lower(email)`, 'in', keys), eb('external_id', 'in', ids)]) : eb(sql<string>`lower(email)`, 'in', keys)))
    .execute()
  return {
    byEmail: new Map(found.map((row) => [row.key, row.external_id])),
    externalIds: new Set(found.flatMap((row) => (row.external_id === null ? [] : [row.external_id]))),
  }
}

/** Why `row` cannot create an account among `existing`, or null when nothing stands in its way. */
function conflictOf(row: Row, existing: Existing): Outcome | null {
  const key = row.email.toLowerCase()
  if (existing.byEmail.has(key)) {
    const stored = existing.byEmail.get(key) ?? null
    return { skipped: row.externalId !== null && stored !== row.externalId ? 'external_id_differs' : 'account_exists' }
  }
  if (row.externalId !== null && existing.externalIds.has(row.externalId)) return { refused: 'externalId already names another account' }
  return null
}

/**
 * What became of each of `rows` (a dry run: would become). The insert decides, by the unique
 * indexes on the address and the external id; the lines it did not insert are then told apart by
 * a read of what holds their address or id. A conflicting account deleted between the two
 * statements reads as `account_exists`: running the file again imports the line.
 */
async function writeBatch(db: Kysely<Database>, rows: Row[], dryRun: boolean, now: Date): Promise<Outcome[]> {
  if (dryRun) {
    const existing = await existingOf(db, rows)
    return rows.map((row) => conflictOf(row, existing) ?? CREATED)
  }
  const inserted = await db
    .insertInto('users')
    .values(
      rows.map((row) => ({
        email: row.email,
        name: row.name,
        password_hash: row.passwordHash,
        email_verified: row.emailVerified,
        first_verified_at: row.emailVerified ? row.createdAt : null,
        roles: JSON.stringify(['user']),
        external_id: row.externalId,
        created_at: row.createdAt,
        updated_at: now,
      })),
    )
    .onConflict((conflict) => conflict.doNothing())
    .returning('email')
    .execute()
  const created = new Set(inserted.map((row) => row.email))
  // without an external id a line can only have met its address: the read is for the lines with one
  const withId = rows.filter((row) => !created.has(row.email) && row.externalId !== null)
  const existing = withId.length ? await existingOf(db, withId) : null
  return rows.map((row) => (created.has(row.email) ? CREATED : (existing && conflictOf(row, existing)) || { skipped: 'account_exists' }))
}

/**
 * Imports the lines of `lines` (a readline interface or any iterable of lines). The database is
 * written one batch at a time; a failing statement (the database gone) stops the import with the
 * batches before it in, and running it again goes on where it stopped (idempotent by address).
 */
export async function importUsers(
  db: Kysely<Database>,
  lines: AsyncIterable<string> | Iterable<string>,
  options: { dryRun: boolean; now: Date; batchSize?: number },
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? IMPORT_BATCH_SIZE
  const summary: ImportSummary = { dryRun: options.dryRun, lines: 0, imported: 0, skipped: 0, invalid: 0, formats: {}, invalidLines: [], skippedLines: [] }
  const seen = new Map<string, number>()
  /** the line that first carried each external id, compared exactly */
  const seenExternal = new Map<string, number>()
  const skip = (entry: ImportSkipped) => {
    summary.skipped += 1
    if (summary.skippedLines.length < LISTED_MAX) summary.skippedLines.push(entry)
  }
  const refuse = (entry: ImportLineProblem) => {
    summary.invalid += 1
    if (summary.invalidLines.length < LISTED_MAX) summary.invalidLines.push(entry)
  }
  let batch: Row[] = []
  const flush = async () => {
    if (!batch.length) return
    const outcomes = await writeBatch(db, batch, options.dryRun, options.now)
    batch.forEach((row, index) => {
      const outcome = outcomes[index]!
      if ('created' in outcome) {
        summary.imported += 1
        summary.formats[row.format] = (summary.formats[row.format] ?? 0) + 1
      } else if ('skipped' in outcome) skip({ line: row.line, email: row.email, reason: outcome.skipped })
      else refuse({ line: row.line, reason: outcome.refused })
    })
    batch = []
  }
  let number = 0
  for await (const raw of lines) {
    number += 1
    const text = raw.trim()
    if (!text) continue
    summary.lines += 1
    const checked = checkImportLine(text, number, options.now)
    if (!checked.ok) {
      refuse({ line: number, reason: checked.reason })
      continue
    }
    const { row } = checked
    const key = row.email.toLowerCase()
    const first = seen.get(key)
    if (first !== undefined) {
      skip({ line: number, email: row.email, reason: 'duplicate_in_file' })
      continue
    }
    const firstExternal = row.externalId === null ? undefined : seenExternal.get(row.externalId)
    if (firstExternal !== undefined) {
      refuse({ line: number, reason: `externalId is already on line ${firstExternal}` })
      continue
    }
    seen.set(key, number)
    if (row.externalId !== null) seenExternal.set(row.externalId, number)
    batch.push(row)
    if (batch.length >= batchSize) await flush()
  }
  await flush()
  // a batch's outcomes are known when it is written, after the lines read since: back to line order
  summary.invalidLines.sort((a, b) => a.line - b.line)
  summary.skippedLines.sort((a, b) => a.line - b.line)
  return summary
}

/** Who imported: the administrator's account and request (POST /admin/users/import), or the operator's CLI (no account). */
export interface Importer {
  userId: number | null
  visitorRowId: number | null
  ipAddress: string | null
  /** `by` (`admin`, `admin-cli`) and, for an administrator, `adminId` */
  details: Record<string, unknown>
}

/**
 * The `users_imported` security event of a run that wrote (a dry run writes nothing, not even
 * this): the counts only, never an address or a hash. Written after the batches, not with them:
 * an import is many statements on purpose (a failed batch keeps the ones before it), so there is
 * no one transaction to share; a run stopped by a failing statement records nothing, and running
 * it again records the run that finished.
 */
export async function recordImport(db: Kysely<Database>, summary: ImportSummary, importer: Importer, at: Date): Promise<void> {
  if (summary.dryRun) return
  await recordSecurityEvent(db, {
    type: 'users_imported',
    userId: importer.userId,
    visitorRowId: importer.visitorRowId,
    ipAddress: importer.ipAddress,
    details: { ...importer.details, lines: summary.lines, imported: summary.imported, skipped: summary.skipped, invalid: summary.invalid },
    at,
  })
}
