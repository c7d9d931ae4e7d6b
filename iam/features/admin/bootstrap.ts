/**
 * The first platform administrator without a restart. The CLI's users:grant-admin cannot open the
 * embedded PGlite database while the IAM holds it (db/data-dir-lock.ts), so a fresh install would
 * need a stop and a start to get its first administrator. Instead, while no account holds the role,
 * each IAM start makes a one-time code and writes it to <dataDir>/iam/admin-bootstrap-code (mode
 * 600, beside the generated dev secrets): whoever can read the server's files may make the account
 * they are signed in to the first administrator with it (POST /auth/admin-bootstrap). The code is
 * never logged; `npm start` prints where the file is.
 *
 * The code lives in this process only (its SHA-256, compared in constant time), and is spent by its
 * first good use: the same check-and-clear runs with no await between, so two requests at once
 * cannot both redeem it. The grant itself is conditional on no administrator existing, in one
 * statement, so an administrator made meanwhile by the CLI (PostgreSQL) wins and the code is refused.
 * With several instances each writes its own code to its own data dir; the CLI is the way there.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { PLATFORM_ADMIN_ROLE } from '../../contract/admin'
import { recordSecurityEvent, type Actor } from '../security-events/repository'

/** Where a start writes the code: beside the generated dev secrets (lib/dev-secrets.ts). */
export const adminBootstrapFile = (dataDir: string): string => resolve(join(dataDir, 'iam', 'admin-bootstrap-code'))

const digest = (code: string): Buffer => createHash('sha256').update(code, 'utf8').digest()

/** The code of this process, while one is open. */
let open: { digest: Buffer; file: string } | null = null

async function anyAdministrator(db: IamContext['db']): Promise<boolean> {
  const role = JSON.stringify([PLATFORM_ADMIN_ROLE])
  const row = await db.selectFrom('users').select('id').where(sql<boolean>`roles @> ${role}::jsonb`).limit(1).executeTakeFirst()
  return !!row
}

/**
 * At start: with no administrator (and the code not turned off), a new code written to the file;
 * with one, a file left by an earlier start removed. Answers the file written, or null.
 */
export async function openAdminBootstrap(ctx: Pick<IamContext, 'db' | 'config'>): Promise<string | null> {
  const file = adminBootstrapFile(ctx.config.service.dataDir)
  if (!ctx.config.security.adminBootstrapCode || (await anyAdministrator(ctx.db))) {
    rmSync(file, { force: true })
    open = null
    return null
  }
  // 24 bytes: 192 bits, nothing to guess; base64url so it survives a copy and paste
  const code = randomBytes(24).toString('base64url')
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, `${code}\n`, { mode: 0o600 })
  chmodSync(file, 0o600)
  open = { digest: digest(code), file }
  return file
}

export type AdminBootstrapResult = { ok: true } | { ok: false; code: 'admin_bootstrap_code_invalid' | 'admin_exists' }

/** Spends the code for the signed-in account `userId`, making it the first administrator. */
export async function redeemAdminBootstrap(
  ctx: Pick<IamContext, 'db' | 'now'>,
  input: { userId: number; code: string; actor: Pick<Actor, 'visitorRowId' | 'ipAddress'> },
): Promise<AdminBootstrapResult> {
  const held = open
  if (!held || !timingSafeEqual(held.digest, digest(input.code))) return { ok: false, code: 'admin_bootstrap_code_invalid' }
  // spent before the first await: a second request with the same code finds none
  open = null
  rmSync(held.file, { force: true })
  const now = new Date(ctx.now())
  const role = JSON.stringify([PLATFORM_ADMIN_ROLE])
  const granted = await ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('users')
      .set({ roles: sql<string[]>`roles || ${role}::jsonb`, updated_at: now })
      .where('id', '=', input.userId)
      .where(sql<boolean>`not exists (select 1 from users where roles @> ${role}::jsonb)`)
      .returning('id')
      .executeTakeFirst()
    if (!updated) return false
    await recordSecurityEvent(trx, { type: 'admin_granted', userId: input.userId, visitorRowId: input.actor.visitorRowId, ipAddress: input.actor.ipAddress, details: { by: 'bootstrap-code' }, at: now })
    return true
  })
  return granted ? { ok: true } : { ok: false, code: 'admin_exists' }
}
