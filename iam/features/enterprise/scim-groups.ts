/**
 * SCIM Groups of one organization (RFC 7643 section 4.2) are its roles (docs/scim.md, "Groups"):
 * `admin`, `member` and each custom role is a group whose id is the role (`admin`, `member`, the
 * custom role's id) and whose displayName is the role's name. The owner role is no group: a
 * provider cannot make or unmake owners, who can do everything, SCIM tokens included.
 *
 * A member holds one role, so adding a SCIM User to a group gives them that role (leaving the
 * group they were in), and removing them from a group gives them `member` again. Owners keep their
 * role: a group change naming an owner is refused. Creating a group creates a custom role without
 * permissions (an owner gives it some on the organization's page); deleting one moves its holders
 * and pending invitations to `member` first. Every role a group change gives or takes is a security
 * event of the member (`org_member_role_provisioned`, scim-member-events.ts) in the change's
 * transaction: receivers get `membership.updated` as for a role an owner changes.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import type { Database } from '../../db/schema'
import type { ScimTenant } from './scim-tokens'
import { inOrgTransaction } from './scim-transaction'
import { recordScimEvent } from './scim-events'
import { recordScimMemberEvent, type ScimCall } from './scim-member-events'
import { applyPatch, scimMembersByIds, type ScimFailure } from './scim-users'
import { firstIssue, groupInput, groupResource, type GroupInput, type PatchInput, type ScimBase } from './scim-schema'

const fail = (code: ScimFailure['code'], detail: string, scimType?: ScimFailure['scimType']): ScimFailure => ({ ok: false, code, detail, ...(scimType ? { scimType } : {}) })
const NOT_FOUND = fail('not_found', 'No such group')
const BUILT_IN = ['admin', 'member'] as const
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

type Db = Kysely<Database> | Transaction<Database>
export type ScimGroupResource = ReturnType<typeof groupResource>

interface GroupRow {
  id: string
  displayName: string
  externalId: string | null
  createdAt: Date | null
}

/** The organization's groups (roles but `owner`), built-in first, then custom roles oldest first. */
async function groupRows(db: Db, orgId: number, id?: string): Promise<GroupRow[]> {
  const external = await db.selectFrom('scim_groups').select(['role', 'external_id']).where('org_id', '=', orgId).execute()
  const externalOf = (role: string) => external.find((e) => e.role === role)?.external_id ?? null
  const rows: GroupRow[] = BUILT_IN.map((role) => ({ id: role, displayName: role, externalId: externalOf(role), createdAt: null }))
  let custom = db.selectFrom('organization_roles').select([sql<string>`id::text`.as('id'), 'name', 'created_at']).where('org_id', '=', orgId)
  if (id !== undefined) {
    if (!UUID.test(id)) return rows.filter((r) => r.id === id)
    custom = custom.where(sql<string>`id::text`, '=', id.toLowerCase())
  }
  const roles = await custom.orderBy('created_at').orderBy('name').execute()
  const all = [...rows, ...roles.map((r) => ({ id: r.id, displayName: r.name, externalId: externalOf(r.id), createdAt: new Date(r.created_at) }))]
  return id === undefined ? all : all.filter((r) => r.id === id.toLowerCase())
}

/** The SCIM Users holding each role. */
async function membersOf(db: Db, orgId: number): Promise<Map<string, Array<{ scimId: string; email: string }>>> {
  const rows = await db
    .selectFrom('scim_users as s')
    .innerJoin('memberships as m', (j) => j.onRef('m.org_id', '=', 's.org_id').onRef('m.user_id', '=', 's.user_id'))
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([sql<string>`s.scim_id::text`.as('scimId'), 'u.email as email', 'm.role as role'])
    .where('s.org_id', '=', orgId)
    .orderBy('s.created_at')
    .execute()
  const byRole = new Map<string, Array<{ scimId: string; email: string }>>()
  for (const row of rows) byRole.set(row.role, [...(byRole.get(row.role) ?? []), { scimId: row.scimId, email: row.email.toLowerCase() }])
  return byRole
}

async function resources(db: Db, tenant: ScimTenant, base: ScimBase, id?: string): Promise<ScimGroupResource[]> {
  const [rows, members] = await Promise.all([groupRows(db, tenant.orgId, id), membersOf(db, tenant.orgId)])
  return rows.map((row) => groupResource({ ...row, members: members.get(row.id) ?? [] }, base))
}

export const listScimGroups = (db: Kysely<Database>, tenant: ScimTenant, base: ScimBase) => resources(db, tenant, base)

export async function getScimGroup(db: Kysely<Database>, tenant: ScimTenant, id: string, base: ScimBase): Promise<{ ok: true; group: ScimGroupResource } | ScimFailure> {
  const [group] = await resources(db, tenant, base, id)
  return group ? { ok: true, group } : NOT_FOUND
}

/**
 * Whether another role of the organization has that name in any letter case (RFC 7643 section 4.2:
 * displayName is not case-exact), the built-in ones and `owner` included. Under the organization's
 * lock, so two creations of one name cannot both pass.
 */
async function nameTaken(trx: Transaction<Database>, orgId: number, name: string, exceptRole?: string): Promise<boolean> {
  if (['owner', ...BUILT_IN].includes(name.toLowerCase())) return true
  let query = trx.selectFrom('organization_roles').select('id').where('org_id', '=', orgId).where(sql<string>`lower(name)`, '=', name.toLowerCase())
  if (exceptRole !== undefined) query = query.where(sql<string>`id::text`, '!=', exceptRole)
  return !!(await query.executeTakeFirst())
}

const setExternalId = (trx: Transaction<Database>, orgId: number, role: string, externalId: string | null | undefined) =>
  trx
    .insertInto('scim_groups')
    .values({ org_id: orgId, role, external_id: externalId || null })
    .onConflict((oc) => oc.columns(['org_id', 'role']).doUpdateSet({ external_id: externalId || null }))
    .execute()

/**
 * Makes the group's SCIM members exactly `wanted` (SCIM ids): those added get the role (named
 * `roleName` in their event), those dropped go back to `member`. Owners cannot be moved; an id
 * that is no SCIM User here is refused.
 */
async function setMembers(
  trx: Transaction<Database>,
  tenant: ScimTenant,
  group: { role: string; roleName: string },
  wanted: readonly string[],
  call: ScimCall,
): Promise<ScimFailure | null> {
  const { role } = group
  const at = new Date(call.now)
  const unique = [...new Set(wanted.map((v) => v.toLowerCase()))]
  const found = await scimMembersByIds(trx, tenant.orgId, unique)
  if (found.length !== unique.length) return fail('bad_request', 'A member is no user of this organization', 'invalidValue')
  const current = (await membersOf(trx, tenant.orgId)).get(role) ?? []
  const adding = found.filter((m) => m.role !== role)
  const dropping = role === 'member' ? [] : current.filter((c) => !unique.includes(c.scimId))
  if (adding.some((m) => m.role === 'owner')) return fail('bad_request', 'An owner keeps the owner role: SCIM does not change owners', 'mutability')
  for (const member of adding) {
    await trx.updateTable('memberships').set({ role }).where('org_id', '=', tenant.orgId).where('user_id', '=', member.userId).execute()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'group.member_added', target: role, details: { user: member.scimId } })
    await recordScimMemberEvent(trx, tenant, { type: 'org_member_role_provisioned', userId: member.userId, call, at, role: group.roleName })
  }
  const droppedRows = await scimMembersByIds(trx, tenant.orgId, dropping.map((d) => d.scimId))
  for (const member of droppedRows) {
    await trx.updateTable('memberships').set({ role: 'member' }).where('org_id', '=', tenant.orgId).where('user_id', '=', member.userId).execute()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'group.member_removed', target: role, details: { user: member.scimId } })
    await recordScimMemberEvent(trx, tenant, { type: 'org_member_role_provisioned', userId: member.userId, call, at, role: 'member' })
  }
  return null
}

const parseGroup = (body: unknown): { ok: true; input: GroupInput } | ScimFailure => {
  const parsed = groupInput.safeParse(body)
  return parsed.success ? { ok: true, input: parsed.data } : fail('bad_request', firstIssue(parsed.error), 'invalidValue')
}

/** POST /Groups: a custom role of that name, without permissions. */
export async function createScimGroup(db: Kysely<Database>, tenant: ScimTenant, body: unknown, base: ScimBase, call: ScimCall): Promise<{ ok: true; group: ScimGroupResource } | ScimFailure> {
  const parsed = parseGroup(body)
  if (!parsed.ok) return parsed
  const { input } = parsed
  const at = new Date(call.now)
  const created = await inOrgTransaction(db, tenant, async (trx) => {
    if (await nameTaken(trx, tenant.orgId, input.displayName)) return fail('conflict', 'The organization has a group of that name', 'uniqueness')
    const role = await trx
      .insertInto('organization_roles')
      .values({ org_id: tenant.orgId, name: input.displayName, permissions: sql<string[]>`'{}'::text[]`, created_at: at })
      .onConflict((oc) => oc.columns(['org_id', 'name']).doNothing())
      .returning(sql<string>`id::text`.as('id'))
      .executeTakeFirst()
    if (!role) return fail('conflict', 'The organization has a group of that name', 'uniqueness')
    await setExternalId(trx, tenant.orgId, role.id, input.externalId)
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'group.created', target: role.id, details: { displayName: input.displayName } })
    const failure = await setMembers(trx, tenant, { role: role.id, roleName: input.displayName }, (input.members ?? []).map((m) => m.value), call)
    return failure ?? { id: role.id }
  })
  if ('ok' in created) return created
  return getScimGroup(db, tenant, created.id, base)
}

/** PUT /Groups/:id: the name (custom roles only), the externalId and the whole member list. */
export async function replaceScimGroup(db: Kysely<Database>, tenant: ScimTenant, id: string, body: unknown, base: ScimBase, call: ScimCall): Promise<{ ok: true; group: ScimGroupResource } | ScimFailure> {
  const parsed = parseGroup(body)
  if (!parsed.ok) return parsed
  const { input } = parsed
  const at = new Date(call.now)
  const done = await inOrgTransaction(db, tenant, async (trx) => {
    const [row] = await groupRows(trx, tenant.orgId, id)
    if (!row) return NOT_FOUND
    if (input.displayName !== row.displayName) {
      if ((BUILT_IN as readonly string[]).includes(row.id)) return fail('bad_request', 'A built-in group keeps its name', 'mutability')
      if (await nameTaken(trx, tenant.orgId, input.displayName, row.id)) return fail('conflict', 'The organization has a group of that name', 'uniqueness')
      await trx.updateTable('organization_roles').set({ name: input.displayName }).where('org_id', '=', tenant.orgId).where(sql<string>`id::text`, '=', row.id).execute()
    }
    await setExternalId(trx, tenant.orgId, row.id, input.externalId)
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'group.updated', target: row.id, details: { displayName: input.displayName } })
    // a built-in group keeps its name (checked above), so displayName is the role's name now
    const failure = input.members === undefined ? null : await setMembers(trx, tenant, { role: row.id, roleName: input.displayName }, input.members.map((m) => m.value), call)
    return failure ?? { id: row.id }
  })
  if ('ok' in done) return done
  return getScimGroup(db, tenant, done.id, base)
}

/** PATCH /Groups/:id: the operations applied to the group as it is, then replaced (members by `value`). */
export async function patchScimGroup(db: Kysely<Database>, tenant: ScimTenant, id: string, patch: PatchInput, base: ScimBase, call: ScimCall): Promise<{ ok: true; group: ScimGroupResource } | ScimFailure> {
  const current = await getScimGroup(db, tenant, id, base)
  if (!current.ok) return current
  const patched = applyPatch(current.group, patch)
  if (!patched.ok) return patched
  return replaceScimGroup(db, tenant, id, { ...patched.resource, members: (patched.resource.members ?? []).map((m) => ({ value: String(m.value) })) }, base, call)
}

/**
 * DELETE /Groups/:id: a custom role's holders and pending invitations become `member`, then the
 * role goes. Each holder's new role is their security event, SCIM User or not: the provider's call
 * changed it.
 */
export async function deleteScimGroup(db: Kysely<Database>, tenant: ScimTenant, id: string, call: ScimCall): Promise<{ ok: true } | ScimFailure> {
  const at = new Date(call.now)
  return inOrgTransaction(db, tenant, async (trx) => {
    const [row] = await groupRows(trx, tenant.orgId, id)
    if (!row) return NOT_FOUND
    if ((BUILT_IN as readonly string[]).includes(row.id)) return fail('bad_request', 'A built-in group cannot be deleted', 'mutability')
    const holders = await trx.updateTable('memberships').set({ role: 'member' }).where('org_id', '=', tenant.orgId).where('role', '=', row.id).returning('user_id').execute()
    for (const holder of holders) await recordScimMemberEvent(trx, tenant, { type: 'org_member_role_provisioned', userId: holder.user_id, call, at, role: 'member' })
    await trx.updateTable('invitations').set({ role: 'member' }).where('org_id', '=', tenant.orgId).where('role', '=', row.id).execute()
    await trx.deleteFrom('scim_groups').where('org_id', '=', tenant.orgId).where('role', '=', row.id).execute()
    await trx.deleteFrom('organization_roles').where('org_id', '=', tenant.orgId).where(sql<string>`id::text`, '=', row.id).execute()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'group.deleted', target: row.id, details: { displayName: row.displayName } })
    return { ok: true as const }
  })
}
