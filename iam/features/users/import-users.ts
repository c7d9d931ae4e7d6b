/**
 * Users brought in from another system: one JSON object per line (email, name?, emailVerified?,
 * passwordHash?, createdAt?). Read as a stream and written in batches, each batch one
 * `INSERT ... ON CONFLICT DO NOTHING RETURNING`: every user is one row of one statement, so no
 * user is ever half in, and an address that already has an account (whatever its case) is skipped
 * and reported, never overwritten. Nothing is hashed here: a password hash is checked and kept in
 * its stored form (imported-hashes.ts) and replaced by our Argon2id at the owner's next sign-in.
 * A user without a hash signs in through a password reset or a provider.
 *
 * A bad line is reported with its number and reason and the rest goes in. A dry run reads the
 * same lines and asks the database which addresses exist, and writes nothing.
 */
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/schema'
import { isEmailShape, normalizeEmail } from '../email-checks/email-checks'
import { parseImportedHash, type SourceFormat } from '../passwords/imported-hashes'
import { recordSecurityEvent } from '../security-events/repository'

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
  reason: 'account_exists' | 'duplicate_in_file'
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
}

type Checked = { ok: true; row: Row } | { ok: false; reason: string }

const KNOWN_KEYS = new Set(['email', 'name', 'emailVerified', 'passwordHash', 'createdAt'])

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
  return { ok: true, row: { line, email, name, passwordHash, format, emailVerified: input.emailVerified === true, createdAt } }
}

/** The addresses of `rows` that got an account (a dry run: that have none yet). */
async function writeBatch(db: Kysely<Database>, rows: Row[], dryRun: boolean, now: Date): Promise<Set<string>> {
  const keys = rows.map((row) => row.email.toLowerCase())
  if (dryRun) {
    const existing = await db
      .selectFrom('users')
      .select(sql<string>`lower(email)`.as('key'))
      .where(sql<string>`lower(email)`, 'in', keys)
      .execute()
    const taken = new Set(existing.map((row) => row.key))
    return new Set(rows.filter((row) => !taken.has(row.email.toLowerCase())).map((row) => row.email))
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
        created_at: row.createdAt,
        updated_at: now,
      })),
    )
    .onConflict((conflict) => conflict.doNothing())
    .returning('email')
    .execute()
  return new Set(inserted.map((row) => row.email))
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
  const skip = (entry: ImportSkipped) => {
    summary.skipped += 1
    if (summary.skippedLines.length < LISTED_MAX) summary.skippedLines.push(entry)
  }
  let batch: Row[] = []
  const flush = async () => {
    if (!batch.length) return
    const created = await writeBatch(db, batch, options.dryRun, options.now)
    for (const row of batch) {
      if (created.has(row.email)) {
        summary.imported += 1
        summary.formats[row.format] = (summary.formats[row.format] ?? 0) + 1
      } else {
        skip({ line: row.line, email: row.email, reason: 'account_exists' })
      }
    }
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
      summary.invalid += 1
      if (summary.invalidLines.length < LISTED_MAX) summary.invalidLines.push({ line: number, reason: checked.reason })
      continue
    }
    const key = checked.row.email.toLowerCase()
    const first = seen.get(key)
    if (first !== undefined) {
      skip({ line: number, email: checked.row.email, reason: 'duplicate_in_file' })
      continue
    }
    seen.set(key, number)
    batch.push(checked.row)
    if (batch.length >= batchSize) await flush()
  }
  await flush()
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
