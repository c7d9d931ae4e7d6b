/**
 * Metadata-document hosts an administrator blocks at run time (the console's /admin/clients page),
 * beside the configuration's `oidc.clientIdMetadataDocuments.blockedHosts`. Both are enforced by
 * the provider's `allowFetch` and `allowClient` (client-metadata-documents.ts): oidc-provider asks
 * `allowClient` each time it resolves a document client, its cached documents included, so a
 * blocked host's clients are refused at the authorization endpoint, the token endpoint and a
 * refresh with the library's own `invalid_client`.
 *
 * Kept in oidc_blocked_hosts (migration 0022) and read from there by every instance, at most once
 * per BLOCKED_HOSTS_TTL_MS: a block holds everywhere within that time, at once on the instance that
 * took it. Blocking also revokes every grant the host's clients hold (their tokens and codes with
 * them, one statement), so a refresh token issued before the block stops working as well.
 */
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import type { BlockedHostView } from '../../contract/oidc-clients'
import { recordUserAction, type Actor } from '../security-events/repository'
import { hostMatches } from './client-metadata-documents'

/** How long an instance trusts its read of the blocked hosts: the longest a block waits to hold on every instance. */
export const BLOCKED_HOSTS_TTL_MS = 5_000

let known: { hosts: readonly string[]; readAtMs: number } | undefined

/** The administrator-blocked host patterns, from this instance's cache while it is fresh. */
export async function blockedHostPatterns(db: Kysely<Database>, nowMs: number): Promise<readonly string[]> {
  if (known && nowMs - known.readAtMs < BLOCKED_HOSTS_TTL_MS) return known.hosts
  try {
    const rows = await db.selectFrom('oidc_blocked_hosts').select('host').execute()
    known = { hosts: rows.map((r) => r.host), readAtMs: nowMs }
  } catch (error) {
    // a database that does not answer refuses every request anyway; a read that failed once falls
    // back to the last list rather than letting a blocked host through
    if (!known) throw error
  }
  return known.hosts
}

/** Forgets this instance's read: the next check reads the table (after a block or an unblock here). */
export function forgetBlockedHosts(): void {
  known = undefined
}

/** The host name of a document client's id (what a block names), or null for an id that is no https URL. */
export function documentHostName(clientId: string): string | null {
  if (!clientId.startsWith('https://')) return null
  return URL.parse(clientId)?.hostname.toLowerCase() ?? null
}

/** Whether a document client's host is on either list. */
export function isHostBlocked(clientId: string, patterns: readonly string[]): boolean {
  const host = documentHostName(clientId)
  return host !== null && patterns.some((pattern) => hostMatches(host, pattern))
}

/** The blocked hosts, the configuration's first. */
export async function listBlockedHosts(ctx: Pick<IamContext, 'db' | 'config'>): Promise<BlockedHostView[]> {
  const rows = await ctx.db.selectFrom('oidc_blocked_hosts').select(['host', 'created_at']).orderBy('host').execute()
  const fromConfig = ctx.config.oidc.clientIdMetadataDocuments.blockedHosts.map((host) => ({ host, source: 'config' as const, blockedAt: null }))
  return [...fromConfig, ...rows.map((r) => ({ host: r.host, source: 'admin' as const, blockedAt: r.created_at.toISOString() }))]
}

type Ctx = Pick<IamContext, 'db' | 'config' | 'now'>
interface AdminInput {
  userId: number
  actor: Actor
  host: string
}

/**
 * Blocks `host` (a host name or `*.example.com`) and revokes every grant of its clients, with their
 * tokens and codes, in one transaction with the security event on the administrator's account.
 * Blocking a host again revokes what it got meanwhile (nothing, once the block holds).
 */
export async function blockHost(ctx: Ctx, input: AdminInput): Promise<{ host: string; revokedGrants: number }> {
  const now = new Date(ctx.now())
  const revokedGrants = await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('oidc_blocked_hosts').values({ host: input.host, blocked_by: input.userId, created_at: now }).onConflict((oc) => oc.column('host').doNothing()).execute()
    const candidates = await trx
      .selectFrom('oidc_payloads')
      .select(sql<string>`payload->>'clientId'`.as('clientId'))
      .distinct()
      .where(sql<string>`payload->>'clientId'`, 'like', 'https://%')
      .execute()
    const clientIds = candidates.map((c) => c.clientId).filter((id) => isHostBlocked(id, [input.host]))
    let grants = 0
    if (clientIds.length > 0) {
      const removed = await trx
        .deleteFrom('oidc_payloads')
        .where(sql<string>`payload->>'clientId'`, 'in', clientIds)
        .where('model', '!=', 'Session')
        .returning('model')
        .execute()
      grants = removed.filter((r) => r.model === 'Grant').length
    }
    await recordUserAction(trx, 'oidc_client_host_blocked', { userId: input.userId, actor: input.actor, details: { host: input.host, revokedGrants: grants }, at: now })
    return grants
  })
  forgetBlockedHosts()
  return { host: input.host, revokedGrants }
}

export type UnblockResult = { ok: true; host: string } | { ok: false; code: 'client_host_not_blocked' | 'client_host_blocked_in_config' }

/** Lifts an administrator's block; the configuration's blocks are lifted in the configuration only. */
export async function unblockHost(ctx: Ctx, input: AdminInput): Promise<UnblockResult> {
  const now = new Date(ctx.now())
  const removed = await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.deleteFrom('oidc_blocked_hosts').where('host', '=', input.host).executeTakeFirst()
    if (row.numDeletedRows === 0n) return false
    await recordUserAction(trx, 'oidc_client_host_unblocked', { userId: input.userId, actor: input.actor, details: { host: input.host }, at: now })
    return true
  })
  if (!removed) {
    const inConfig = ctx.config.oidc.clientIdMetadataDocuments.blockedHosts.includes(input.host)
    return { ok: false, code: inConfig ? 'client_host_blocked_in_config' : 'client_host_not_blocked' }
  }
  forgetBlockedHosts()
  return { ok: true, host: input.host }
}
