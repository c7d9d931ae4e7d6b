/**
 * The organizations as a platform administrator sees them (GET /admin/orgs, /admin/orgs/:orgId):
 * every organization, whatever the administrator's own memberships; read only. Named by public id.
 */
import { sql } from 'kysely'
import type { IamContext } from '../../context'
import { mayLag } from '../../db/replicas'

export interface AdminOrgSummary {
  id: string
  slug: string
  name: string
  createdAt: string
  members: number
}

type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired'

export interface AdminOrgDetail {
  org: AdminOrgSummary
  /** `deactivatedAt`: when the organization's identity provider deactivated the membership (SCIM `active: false`), else null */
  members: Array<{ userId: string; email: string; name: string; role: string; roleName: string; since: string; deactivatedAt: string | null }>
  roles: Array<{ id: string; name: string; permissions: string[]; createdAt: string }>
  invitations: Array<{ id: string; email: string; role: string; createdAt: string; expiresAt: string; status: InvitationStatus }>
}

const encodeCursor = (id: number): string => Buffer.from(`o${id}`).toString('base64url')
function decodeCursor(cursor: string | undefined): number | null | 'invalid' {
  if (cursor === undefined) return null
  const match = /^o(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString())
  return match ? Number(match[1]) : 'invalid'
}

const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)
const isoOf = (value: Date | string) => new Date(value).toISOString()
/** Bounds an unusual organization's lists in one answer. */
const DETAIL_LIST_CAP = 500

type SummaryRow = { id: number; public_id: string; slug: string; name: string; created_at: Date | string; members: number | string }
const summaryOf = (row: SummaryRow): AdminOrgSummary => ({ id: row.public_id, slug: row.slug, name: row.name, createdAt: isoOf(row.created_at), members: Number(row.members) })

/** A page of organizations, oldest first, whose slug or name starts with `q`; `next` as for the users. */
export async function searchOrgs(
  ctx: Pick<IamContext, 'db'>,
  input: { q?: string; limit: number; cursor?: string },
): Promise<{ ok: true; orgs: AdminOrgSummary[]; next: string | null } | { ok: false; code: 'invalid_cursor' }> {
  const after = decodeCursor(input.cursor)
  if (after === 'invalid') return { ok: false, code: 'invalid_cursor' }
  const prefix = input.q ? likePrefix(input.q) : null
  const { rows } = await sql<SummaryRow>`select o.id, o.public_id::text as public_id, o.slug, o.name, o.created_at,
      (select count(*) from memberships m where m.org_id = o.id) as members
    from organizations o
    where (${after}::integer is null or o.id > ${after}::integer)
      and (${prefix}::text is null or lower(o.slug) like ${prefix}::text or lower(o.name) like ${prefix}::text)
    order by o.id
    limit ${input.limit + 1}`.execute(mayLag(ctx.db)) // may lag: a list an administrator browses
  const page = rows.slice(0, input.limit)
  const next = rows.length > input.limit ? encodeCursor(page[page.length - 1]!.id) : null
  return { ok: true, orgs: page.map(summaryOf), next }
}

/** One organization with its members, custom roles and invitations; undefined when there is none. */
export async function orgDetail(ctx: IamContext, publicId: string): Promise<AdminOrgDetail | undefined> {
  if (!isUuid(publicId)) return undefined
  const { rows } = await sql<SummaryRow>`select o.id, o.public_id::text as public_id, o.slug, o.name, o.created_at,
      (select count(*) from memberships m where m.org_id = o.id) as members
    from organizations o where o.public_id = ${publicId}::uuid`.execute(ctx.db)
  const row = rows[0]
  if (!row) return undefined
  const now = new Date(ctx.now())
  const [members, roles, invitations] = await Promise.all([
    sql<{ userId: string; email: string; name: string; role: string; roleName: string; since: Date | string; deactivatedAt: Date | string | null }>`select u.public_id::text as "userId", u.email, u.name, m.role,
        coalesce(r.name, m.role) as "roleName", m.created_at as since, m.deprovisioned_at as "deactivatedAt"
      from memberships m
      join users u on u.id = m.user_id
      left join organization_roles r on r.org_id = m.org_id and r.id::text = m.role
      where m.org_id = ${row.id}
      order by m.created_at, u.id
      limit ${DETAIL_LIST_CAP}`.execute(ctx.db),
    ctx.db.selectFrom('organization_roles').select(['id', 'name', 'permissions', 'created_at']).where('org_id', '=', row.id).orderBy('created_at').limit(DETAIL_LIST_CAP).execute(),
    ctx.db
      .selectFrom('invitations')
      .select(['public_id', 'email', 'role', 'created_at', 'expires_at', 'accepted_at', 'revoked_at'])
      .where('org_id', '=', row.id)
      .orderBy('created_at', 'desc')
      .limit(DETAIL_LIST_CAP)
      .execute(),
  ])
  return {
    org: summaryOf(row),
    members: members.rows.map((m) => ({ ...m, since: isoOf(m.since), deactivatedAt: m.deactivatedAt === null ? null : isoOf(m.deactivatedAt) })),
    roles: roles.map((r) => ({ id: r.id, name: r.name, permissions: r.permissions, createdAt: isoOf(r.created_at) })),
    invitations: invitations.map((i) => ({
      id: i.public_id,
      email: i.email,
      role: i.role,
      createdAt: isoOf(i.created_at),
      expiresAt: isoOf(i.expires_at),
      status: (i.accepted_at ? 'accepted' : i.revoked_at ? 'revoked' : i.expires_at <= now ? 'expired' : 'pending') as InvitationStatus,
    })),
  }
}
