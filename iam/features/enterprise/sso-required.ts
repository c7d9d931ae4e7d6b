/**
 * "Must this address sign in through its organization's identity provider?" (docs/enterprise.md,
 * requiring SSO), answered from memory so that an ordinary sign-in pays a Set lookup and no
 * statement: the snapshot holds the verified domains of organizations whose enabled SAML
 * connection has `requireSso`, with the connection each routes to.
 *
 * Each instance re-reads it every `enterprise.ssoRequiredRefreshMs` (plugins/05.sso-required.ts)
 * and at once after this instance changed a domain or a connection (the routes under
 * routes/orgs/[orgId]/), so another instance's change is seen within one interval. Until the first
 * read, and whenever the last one is older than three intervals (a timer that stopped), the answer
 * is read from the database for that address's domain (connectionForDomain): a stale snapshot
 * never lets a password through for a domain that requires SSO, it only costs a statement.
 * Process-wide state, like webhooks/subscriptions.ts: one database per process.
 *
 * The answer depends on the domain alone, which its organization proved in public DNS: it says
 * nothing about whether an account of the address exists.
 */
import { sql, type Kysely } from 'kysely'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import { emailDomain } from './domain-name'
import { connectionForDomain } from './domains'

/** Where an address that must use its organization's sign-in is sent: the connection's start. */
export interface SsoRequired {
  connectionId: string
}

interface Known {
  /** domain (IDNA ASCII, lower case) -> the public id of the connection it routes to */
  domains: ReadonlyMap<string, string>
  /** Date.now() after which the snapshot is not trusted (a wall-clock freshness, not the IAM's clock) */
  trustedUntil: number
}

let known: Known | null = null

/** Stores the domains that require SSO, trusted for `validForMs` (Infinity: no timer re-reads them). */
export function rememberSsoRequired(rows: Iterable<{ domain: string; connectionId: string }>, validForMs: number): void {
  const domains = new Map<string, string>()
  for (const row of rows) domains.set(row.domain, row.connectionId)
  known = { domains, trustedUntil: Date.now() + validForMs }
}

/** Drops the snapshot: every lookup reads the database until the next read. */
export function forgetSsoRequired(): void {
  known = null
}

/** The one statement a refresh costs: verified domains of enabled connections that require SSO. */
export function selectSsoRequiredDomains(db: Kysely<Database>): Promise<{ domain: string; connectionId: string }[]> {
  return db
    .selectFrom('org_domains as d')
    .innerJoin('saml_connections as c', 'c.org_id', 'd.org_id')
    .select(['d.domain', sql<string>`c.public_id::text`.as('connectionId')])
    .where('d.verified_at', 'is not', null)
    .where('c.enabled', '=', true)
    .where('c.require_sso', '=', true)
    .execute()
}

/** Re-reads the snapshot; `refreshMs` 0 means no timer re-reads it, so it is trusted until the next change here. */
export async function reloadSsoRequired(db: Kysely<Database>, refreshMs: number): Promise<void> {
  rememberSsoRequired(await selectSsoRequiredDomains(db), refreshMs === 0 ? Infinity : 3 * refreshMs)
}

// the part after the last "@", as typed: lower-cased ASCII is the common case and is looked up as
// it is; anything else goes through the same normalisation a claimed domain did (domain-name.ts)
const PLAIN_DOMAIN = /^[a-z0-9.-]+$/

function domainOf(email: string): string | null {
  const at = email.lastIndexOf('@')
  if (at < 1) return null
  const typed = email.slice(at + 1).trim().toLowerCase().replace(/\.$/, '')
  return PLAIN_DOMAIN.test(typed) ? typed : emailDomain(email.trim().toLowerCase())
}

/**
 * The connection `email` must sign in through, or null. With a fresh snapshot this is a Map lookup;
 * without one, one statement for this domain.
 */
export async function ssoRequiredFor(db: Kysely<Database>, email: string): Promise<SsoRequired | null> {
  const domain = domainOf(email)
  if (!domain) return null
  if (known && Date.now() <= known.trustedUntil) {
    const connectionId = known.domains.get(domain)
    return connectionId ? { connectionId } : null
  }
  const route = await connectionForDomain(db, domain)
  return route?.requireSso ? { connectionId: route.connectionId } : null
}

/**
 * After this instance changed a domain or a connection: the snapshot is read again before the
 * answer, so the change holds here at once. A failed read drops the snapshot instead (the lookups
 * then read the database until the timer's next read), so the change still holds.
 */
export async function ssoRequiredChanged(ctx: Pick<IamContext, 'db' | 'config' | 'log'>): Promise<void> {
  try {
    await reloadSsoRequired(ctx.db, ctx.config.enterprise.ssoRequiredRefreshMs)
  } catch (error) {
    forgetSsoRequired()
    ctx.log.warn('sso-required domains not read after a change', { error: (error as Error).message })
  }
}
