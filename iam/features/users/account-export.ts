/**
 * The account's own data, as its owner downloads it (GET /auth/export, docs/accounts.md): profile,
 * live sessions, security events, API tokens', second factors' and linked providers' metadata,
 * organizations and connected apps. One statement per kind of data (security events in pages of
 * EVENTS_PAGE), all inside one read-only REPEATABLE READ transaction, so the document is one
 * snapshot of the account: a change committed while it is read shows in every part or in none.
 *
 * Never a secret: no column holding a password hash, TOTP secret, recovery code hash, token hash,
 * passkey credential or key, or link is selected, and session ids are left out, including the ids
 * some security events carry in their details (the file leaves the service and is kept anywhere).
 */
import { sql, type Transaction } from 'kysely'
import { ACCOUNT_EXPORT_VERSION, EXPORT_EVENTS_MAX, type AccountExportDocument } from '../../contract/account-export'
import type { PictureType } from '../../contract/profile-picture'
import type { IamContext } from '../../context'
import type { Database } from '../../db/schema'
import { mayLagSnapshot, readSnapshot } from '../../db/replicas'
import { listConnectedApps } from '../oidc/connected-apps'
import { pageSecurityEvents, type SecurityEventCursor } from '../security-events/repository'

/** Security events per statement while the export pages through them. */
const EVENTS_PAGE = 1_000
/** Bounds a pathological account's other lists; a person has a handful of each. */
const LIST_CAP = 1_000

/** Keys of security event details that name a session (a refresh-token family): left out of the file. */
const SESSION_DETAIL_KEYS = new Set(['sessionId', 'familyId'])

type Trx = Transaction<Database>

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString())
const text = (value: unknown): string | null => (typeof value === 'string' && value ? value : null)

function withoutSessionIds(details: Record<string, unknown> | null): Record<string, unknown> {
  return Object.fromEntries(Object.entries(details ?? {}).filter(([key]) => !SESSION_DETAIL_KEYS.has(key)))
}

/** The account, its TOTP factor and its unused recovery codes, in one statement. */
function readAccount(trx: Trx, userId: number) {
  return trx
    .selectFrom('users as u')
    .leftJoin('totp_factors as t', 't.user_id', 'u.id')
    .where('u.id', '=', userId)
    .select((eb) => [
      sql<string>`u.public_id::text`.as('public_id'),
      'u.email',
      'u.name',
      'u.email_verified',
      'u.created_at',
      'u.external_id',
      'u.locale',
      'u.time_zone',
      eb('u.password_hash', 'is not', null).as('has_password'),
      't.created_at as totp_created_at',
      't.enabled_at as totp_enabled_at',
      eb.selectFrom('recovery_codes as r').select((r) => r.fn.countAll<number | string>().as('n')).whereRef('r.user_id', '=', 'u.id').where('r.used_at', 'is', null).as('codes_left'),
      eb.selectFrom('user_picture_sources as s').select('s.source').whereRef('s.user_id', '=', 'u.id').as('picture_source'),
    ])
    .executeTakeFirst()
}

/** Live sessions as GET /auth/sessions lists them (features/sessions/account-sessions.ts), with the device's User-Agent. */
function readSessions(trx: Trx, userId: number, now: Date, bornAfter: Date) {
  return trx
    .selectFrom('session_families as f')
    .leftJoin('visitors as v', 'v.id', 'f.visitor_id')
    .select(['f.id', 'f.created_at', 'f.last_seen', 'f.ip_address', 'f.fingerprint', 'v.user_agent'])
    .where('f.user_id', '=', userId)
    .where('f.revoked_at', 'is', null)
    .where('f.created_at', '>', bornAfter)
    .where(sql<boolean>`exists (select 1 from refresh_tokens t where t.family_id = f.id and t.status = 'active' and t.expires_at > ${now})`)
    .orderBy('f.created_at', 'desc')
    .orderBy('f.id', 'desc')
    .limit(LIST_CAP)
    .execute()
}

/** Every event, newest first, a page per statement, up to EXPORT_EVENTS_MAX; `complete` false when older ones remain. */
async function readEvents(trx: Trx, userId: number) {
  const events: AccountExportDocument['securityEvents'] = []
  let before: SecurityEventCursor | null = null
  for (;;) {
    const room = EXPORT_EVENTS_MAX - events.length
    // one row beyond the bound tells whether older events exist without a count
    const rows = await pageSecurityEvents(trx, userId, { limit: Math.min(EVENTS_PAGE, room + 1), before })
    for (const row of rows.slice(0, room)) {
      events.push({ type: row.type, createdAt: row.created_at.toISOString(), ipAddress: row.ip_address, browser: row.browser ?? null, details: withoutSessionIds(row.details) })
    }
    if (rows.length > room) return { events, complete: false }
    const last = rows.at(-1)
    if (rows.length < EVENTS_PAGE || !last) return { events, complete: true }
    before = { createdAt: last.created_at, id: last.id }
  }
}

function readTokens(trx: Trx, userId: number) {
  return trx
    .selectFrom('api_tokens')
    .select(['name', 'public_identifier', 'privilege_type', 'valid', 'restricted_to_ip_address', 'created_at', 'expires_at', 'last_used', 'usage_count'])
    .where('user_id', '=', userId)
    .orderBy('id')
    .limit(LIST_CAP)
    .execute()
}

function readPicture(trx: Trx, userId: number) {
  return trx.selectFrom('user_pictures').select(['content_type', 'bytes', 'updated_at']).where('user_id', '=', userId).executeTakeFirst()
}

function readPasskeys(trx: Trx, userId: number) {
  return trx.selectFrom('passkeys').select(['name', 'created_at', 'last_used_at', 'backed_up']).where('user_id', '=', userId).orderBy('id').limit(LIST_CAP).execute()
}

function readProviders(trx: Trx, userId: number) {
  return trx.selectFrom('oauth_identities').select(['provider', 'email', 'created_at', 'last_login_at']).where('user_id', '=', userId).orderBy('provider').orderBy('created_at').limit(LIST_CAP).execute()
}

/** Memberships with the organization, a custom role by its name. */
function readOrganizations(trx: Trx, userId: number) {
  return sql<{ id: string; slug: string; name: string; role: string; since: Date | string }>`select o.public_id::text as id, o.slug, o.name,
      coalesce(r.name, m.role) as role, m.created_at as since
    from memberships m
    join organizations o on o.id = m.org_id
    left join organization_roles r on r.org_id = o.id and r.id::text = m.role
    where m.user_id = ${userId}
    order by m.created_at, o.id
    limit ${LIST_CAP}`.execute(trx)
}

/**
 * The export document of the account `userId`, made by the session `currentSessionId`; undefined
 * when the account is gone (deleted between authentication and this read).
 */
export async function exportAccount(ctx: Pick<IamContext, 'db' | 'now' | 'config'>, input: { userId: number; currentSessionId: string }): Promise<AccountExportDocument | undefined> {
  const nowMs = ctx.now()
  const now = new Date(nowMs)
  const bornAfter = new Date(nowMs - ctx.config.jwt.refresh_tokens.MAX_SESSION_LIFE)
  const { userId } = input
  const build = async (trx: Transaction<Database>): Promise<AccountExportDocument | undefined> => {
    const account = await readAccount(trx, userId)
    if (!account) return undefined
    const sessions = await readSessions(trx, userId, now, bornAfter)
    const events = await readEvents(trx, userId)
    const tokens = await readTokens(trx, userId)
    const passkeys = await readPasskeys(trx, userId)
    const providers = await readProviders(trx, userId)
    const orgs = await readOrganizations(trx, userId)
    const apps = await listConnectedApps(trx, userId, nowMs)
    const pictureSource = account.picture_source ?? 'none'
    const picture = pictureSource === 'upload' ? await readPicture(trx, userId) : undefined
    return {
      version: ACCOUNT_EXPORT_VERSION,
      exportedAt: now.toISOString(),
      profile: {
        id: account.public_id,
        email: account.email,
        name: account.name,
        emailVerified: account.email_verified,
        hasPassword: !!account.has_password,
        createdAt: account.created_at.toISOString(),
        externalId: account.external_id,
        locale: account.locale,
        timeZone: account.time_zone,
      },
      sessions: sessions.map((row) => {
        const fp = row.fingerprint ?? {}
        return {
          current: row.id === input.currentSessionId,
          createdAt: row.created_at.toISOString(),
          lastSeenAt: row.last_seen.toISOString(),
          ipAddress: row.ip_address,
          userAgent: row.user_agent,
          browser: text(fp.browser),
          os: text(fp.os),
          country: text(fp.country),
        }
      }),
      picture: {
        source: pictureSource,
        contentType: picture ? (picture.content_type as PictureType) : null,
        base64: picture ? Buffer.from(picture.bytes).toString('base64') : null,
        updatedAt: picture ? picture.updated_at.toISOString() : null,
      },
      securityEvents: events.events,
      securityEventsComplete: events.complete,
      apiTokens: tokens.map((t) => ({
        name: t.name,
        publicIdentifier: t.public_identifier,
        privilege: t.privilege_type,
        valid: t.valid === 1,
        ipRestrictions: Array.isArray(t.restricted_to_ip_address) && t.restricted_to_ip_address.length ? t.restricted_to_ip_address : null,
        createdAt: t.created_at.toISOString(),
        expiresAt: iso(t.expires_at),
        lastUsedAt: iso(t.last_used),
        usageCount: t.usage_count,
      })),
      secondFactors: {
        totp: account.totp_created_at ? { enabled: account.totp_enabled_at !== null, createdAt: account.totp_created_at.toISOString(), enabledAt: iso(account.totp_enabled_at) } : null,
        // count(*) is a bigint: pg may hand it over as a string
        recoveryCodesRemaining: Number(account.codes_left ?? 0),
        passkeys: passkeys.map((k) => ({ name: k.name, createdAt: k.created_at.toISOString(), lastUsedAt: iso(k.last_used_at), backedUp: k.backed_up })),
      },
      linkedProviders: providers.map((i) => ({ provider: i.provider, email: i.email || null, linkedAt: new Date(i.created_at).toISOString(), lastSignInAt: new Date(i.last_login_at).toISOString() })),
      organizations: orgs.rows.map((o) => ({ ...o, since: new Date(o.since).toISOString() })),
      connectedApps: apps,
    }
  }
  // May lag: the person's own data as a file; a change made a moment ago may be in the next one.
  // No account on the replica may only mean it is not there yet (just signed up): the primary,
  // which the session was just checked against, says whether it is gone.
  return (await mayLagSnapshot(ctx.db, build)) ?? (await readSnapshot(ctx.db, build))
}
