/**
 * SCIM Users of one organization (RFC 7643 section 4.1, RFC 7644 section 3). A SCIM User is a
 * membership of the token's organization that a provider created or linked (a `scim_users` row);
 * members added by invitation are not SCIM resources until a provider links them by `userName`.
 *
 * Every statement names the tenant's organization id: a resource id of another organization, or
 * of an account that is no member here, is simply not found.
 *
 * Creation (docs/scim.md, "Accounts and addresses"): `userName` is the e-mail address, in one of
 * the organization's verified domains (400 `invalidValue` otherwise, whoever has the address).
 * - No account has it: an account is made (no password; the address unconfirmed until its owner
 *   proves it), a member of the organization.
 * - An account has it and its owner confirmed the address: it is linked into a membership (role `member` when it is none yet), and
 *   never taken over: its name, address, password and other memberships stay as they are; the
 *   names the provider sends are kept in the organization's SCIM row, not in the account.
 * - An account has it unconfirmed, or is being deleted: 409 `uniqueness`, nothing linked.
 * - It is already a SCIM User here: 409 `uniqueness`.
 *
 * `userName` (and so `emails`) cannot change through SCIM: an address is how a person signs in,
 * and a provider of one organization must not move an account's address.
 *
 * Writes run in one transaction each, after locking the organization's row, so two calls of one
 * provider for one organization are serialised, and the change, its event and its deprovisioning
 * commit together. A change to an account or a membership also records a security event of the
 * person in that transaction (scim-member-events.ts), which its webhooks are queued beside; a call
 * that changes neither (a repeated `active: false`, new names only) records none.
 */
import { sql, type Kysely, type Transaction } from 'kysely'
import { scimPatch, ScimError, type ScimPatchOperation } from 'scim-patch'
import type { Database } from '../../db/schema'
import { isUniqueViolation, findUserByEmail, insertUser } from '../users/users-repo'
import { isDeletionPending } from '../account-deletion/deletion-state'
import type { ScimTenant } from './scim-tokens'
import { inOrgTransaction } from './scim-transaction'
import { emailDomain } from './domain-name'
import { domainVerifiedBy } from './domains'
import { recordScimEvent } from './scim-events'
import { deprovisionMembership, reactivateMembership } from './scim-deprovision'
import { recordScimMemberEvent, recordScimSignUp, type ScimCall } from './scim-member-events'
import { firstIssue, userInput, userResource, type PatchInput, type ScimBase, type ScimType, type ScimUserResource, type ScimUserRow, type UserInput } from './scim-schema'

/** A failure a SCIM answer names (RFC 7644 section 3.12): the HTTP side picks the status by `code`. */
export type ScimFailure = { ok: false; code: 'not_found' | 'conflict' | 'bad_request' | 'precondition_failed'; scimType?: ScimType; detail: string }

const fail = (code: ScimFailure['code'], detail: string, scimType?: ScimType): ScimFailure => ({ ok: false, code, detail, ...(scimType ? { scimType } : {}) })
const NOT_FOUND = fail('not_found', 'No such user')

type Db = Kysely<Database> | Transaction<Database>

type RawRow = {
  scimId: string
  externalId: string | null
  email: string
  accountName: string
  givenName: string | null
  familyName: string | null
  formattedName: string | null
  displayName: string | null
  deprovisionedAt: Date | string | null
  version: number
  createdAt: Date | string
  updatedAt: Date | string
  userId: number
  role: string
}

const rowsQuery = (db: Db, orgId: number) =>
  db
    .selectFrom('scim_users as s')
    .innerJoin('memberships as m', (j) => j.onRef('m.org_id', '=', 's.org_id').onRef('m.user_id', '=', 's.user_id'))
    .innerJoin('users as u', 'u.id', 's.user_id')
    .select([
      sql<string>`s.scim_id::text`.as('scimId'),
      's.external_id as externalId',
      'u.email as email',
      'u.name as accountName',
      's.given_name as givenName',
      's.family_name as familyName',
      's.formatted_name as formattedName',
      's.display_name as displayName',
      'm.deprovisioned_at as deprovisionedAt',
      's.version as version',
      's.created_at as createdAt',
      's.updated_at as updatedAt',
      's.user_id as userId',
      'm.role as role',
    ])
    .where('s.org_id', '=', orgId)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const toRow = (r: RawRow): ScimUserRow & { userId: number; role: string } => ({
  ...r,
  email: r.email.toLowerCase(),
  active: r.deprovisionedAt === null,
  createdAt: new Date(r.createdAt),
  updatedAt: new Date(r.updatedAt),
})

async function findRow(db: Db, orgId: number, scimId: string) {
  if (!UUID.test(scimId)) return undefined
  const row = (await rowsQuery(db, orgId).where(sql<string>`s.scim_id::text`, '=', scimId.toLowerCase()).executeTakeFirst()) as RawRow | undefined
  return row ? toRow(row) : undefined
}

/** Every SCIM User of the organization, oldest first (a filter and a page are taken of this list). */
export async function listScimUsers(db: Kysely<Database>, tenant: ScimTenant, base: ScimBase): Promise<ScimUserResource[]> {
  const rows = (await rowsQuery(db, tenant.orgId).orderBy('s.created_at').orderBy('s.scim_id').execute()) as RawRow[]
  return rows.map((r) => userResource(toRow(r), base))
}

export async function getScimUser(db: Kysely<Database>, tenant: ScimTenant, scimId: string, base: ScimBase): Promise<{ ok: true; user: ScimUserResource } | ScimFailure> {
  const row = await findRow(db, tenant.orgId, scimId)
  return row ? { ok: true, user: userResource(row, base) } : NOT_FOUND
}

/** The name an account made here starts with: what the provider says, else the address's local part. */
function accountNameOf(input: UserInput): string {
  const joined = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(' ')
  return (input.displayName || input.name?.formatted || joined || input.userName.split('@')[0] || input.userName).slice(0, 100)
}

const ownNames = (input: UserInput) => ({
  external_id: input.externalId || null,
  given_name: input.name?.givenName || null,
  family_name: input.name?.familyName || null,
  formatted_name: input.name?.formatted || null,
  display_name: input.displayName || null,
})

/**
 * An owner who can act remains besides `userId` (the last owner rule, docs/organizations.md, as
 * features/organizations/members.ts counts them: not deactivated, not waiting for deletion, not
 * suspended).
 */
async function anotherActiveOwner(trx: Transaction<Database>, orgId: number, userId: number, now: Date): Promise<boolean> {
  const row = await trx
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.user_id')
    .where('m.org_id', '=', orgId)
    .where('m.role', '=', 'owner')
    .where('m.user_id', '!=', userId)
    .where('m.deprovisioned_at', 'is', null)
    .where('u.deletion_due_at', 'is', null)
    .where((eb) => eb.or([eb('u.banned_until', 'is', null), eb('u.banned_until', '<=', now)]))
    .executeTakeFirst()
  return !!row
}

const LAST_OWNER = fail('bad_request', 'The last owner of the organization cannot be deactivated or deleted: make another member an owner first', 'mutability')

/**
 * Applies `active` to the membership; a failure when it would leave the organization without an
 * owner. A membership that changes is logged and, unless `quiet` (a DELETE reports the deletion
 * alone), becomes the person's security event; one already so changes nothing and records nothing.
 */
async function applyActive(
  trx: Transaction<Database>,
  tenant: ScimTenant,
  row: { userId: number; role: string; scimId: string },
  active: boolean,
  call: ScimCall,
  quiet = false,
): Promise<ScimFailure | null> {
  const at = new Date(call.now)
  if (active) {
    if (await reactivateMembership(trx, tenant.orgId, row.userId)) {
      await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'user.reactivated', target: row.scimId, details: {} })
      if (!quiet) await recordScimMemberEvent(trx, tenant, { type: 'org_member_reprovisioned', userId: row.userId, call, at })
    }
    return null
  }
  if (row.role === 'owner' && !(await anotherActiveOwner(trx, tenant.orgId, row.userId, at))) return LAST_OWNER
  if (await deprovisionMembership(trx, tenant.orgId, row.userId, at)) {
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'user.deactivated', target: row.scimId, details: {} })
    if (!quiet) await recordScimMemberEvent(trx, tenant, { type: 'org_member_deprovisioned', userId: row.userId, call, at })
  }
  return null
}

/** The externalId index, or an account made for the same address at the same moment elsewhere. */
const uniqueConflict = (error: unknown): ScimFailure | undefined =>
  isUniqueViolation(error) ? fail('conflict', 'Another user has that userName or externalId', 'uniqueness') : undefined

/** POST /Users (RFC 7644 section 3.3). */
export async function createScimUser(
  db: Kysely<Database>,
  tenant: ScimTenant,
  body: unknown,
  base: ScimBase,
  call: ScimCall,
): Promise<{ ok: true; user: ScimUserResource } | ScimFailure> {
  const parsed = userInput.safeParse(body)
  if (!parsed.success) return fail('bad_request', firstIssue(parsed.error), 'invalidValue')
  const input = parsed.data
  const at = new Date(call.now)
  return inOrgTransaction(db, tenant, async (trx) => {
    // Only an address of a domain the organization proved (docs/enterprise.md, "Verified domains")
    // is provisioned: a provider may not make or link accounts of addresses anyone else owns. Decided
    // before any account is looked up, so the answer says nothing about which addresses have one.
    const domain = emailDomain(input.userName)
    if (domain === null || !(await domainVerifiedBy(trx, tenant.orgId, domain))) {
      return fail('bad_request', "userName must be an address in one of the organization's verified domains", 'invalidValue')
    }
    let account = await findUserByEmail(trx, input.userName)
    let action: 'user.created' | 'user.linked' = 'user.linked'
    // An account is linked only when its owner confirmed the address: anyone can sign up with an
    // address they do not own and hold the password, and linking that account would make them a
    // member of the organization the moment its provider provisions the real person (the rule SAML
    // sign-in keeps too, saml-login.ts). Nor an account on its way to deletion.
    if (account && (!account.email_verified || isDeletionPending(account))) {
      return fail('conflict', 'An account has that userName, and its owner has not confirmed the address: it can be linked once they confirm it', 'uniqueness')
    }
    if (!account) {
      account = await insertUser(trx, { email: input.userName, name: accountNameOf(input), passwordHash: null, emailVerified: false, termsConsent: false, now: at })
      action = 'user.created'
      // the account's first event, as a sign-up's (user.created for webhook receivers)
      await recordScimSignUp(trx, tenant, { userId: account.id, call, at })
    }
    const linked = await trx.selectFrom('scim_users').select('scim_id').where('org_id', '=', tenant.orgId).where('user_id', '=', account.id).executeTakeFirst()
    if (linked) return fail('conflict', 'The organization has a user with that userName', 'uniqueness')
    const joined = await trx
      .insertInto('memberships')
      .values({ org_id: tenant.orgId, user_id: account.id, role: 'member', created_at: at })
      .onConflict((oc) => oc.columns(['org_id', 'user_id']).doNothing())
      .returning('user_id')
      .executeTakeFirst()
    // a member already (invited, or by the organization's SSO) is linked, not made one
    if (joined) await recordScimMemberEvent(trx, tenant, { type: 'org_member_provisioned', userId: account.id, call, at, role: 'member' })
    const inserted = await trx
      .insertInto('scim_users')
      .values({ org_id: tenant.orgId, user_id: account.id, ...ownNames(input), created_at: at, updated_at: at })
      .returning(sql<string>`scim_id::text`.as('scimId'))
      .executeTakeFirstOrThrow()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action, target: inserted.scimId, details: { userName: input.userName, externalId: input.externalId ?? null } })
    const row = (await findRow(trx, tenant.orgId, inserted.scimId))!
    // a person created inactive, or linked while the membership was blocked, stays as the body says
    const failure = await applyActive(trx, tenant, row, input.active ?? true, call)
    if (failure) return failure
    return { ok: true as const, user: userResource((await findRow(trx, tenant.orgId, inserted.scimId))!, base) }
  }, uniqueConflict)
}

/** PUT /Users/:id (RFC 7644 section 3.5.1): every attribute this service keeps is replaced. */
export async function replaceScimUser(
  db: Kysely<Database>,
  tenant: ScimTenant,
  scimId: string,
  body: unknown,
  base: ScimBase,
  call: ScimCall,
  ifMatch?: string,
): Promise<{ ok: true; user: ScimUserResource } | ScimFailure> {
  const parsed = userInput.safeParse(body)
  if (!parsed.success) return fail('bad_request', firstIssue(parsed.error), 'invalidValue')
  const input = parsed.data
  const at = new Date(call.now)
  return inOrgTransaction(db, tenant, async (trx) => {
    const row = await findRow(trx, tenant.orgId, scimId)
    if (!row) return NOT_FOUND
    if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== `W/"${row.version}"`) return fail('precondition_failed', 'The resource changed since that version', 'invalidVers')
    if (input.userName !== row.email) return fail('bad_request', 'userName cannot change: it is the address the account signs in with', 'mutability')
    await trx
      .updateTable('scim_users')
      .set({ ...ownNames(input), version: sql`version + 1`, updated_at: at })
      .where('org_id', '=', tenant.orgId)
      .where(sql<string>`scim_id::text`, '=', row.scimId)
      .execute()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'user.updated', target: row.scimId, details: {} })
    if (input.active !== undefined) {
      const failure = await applyActive(trx, tenant, row, input.active, call)
      if (failure) return failure
    }
    return { ok: true as const, user: userResource((await findRow(trx, tenant.orgId, row.scimId))!, base) }
  }, uniqueConflict)
}

/** Maps scim-patch's failures to RFC 7644 section 3.12 (its `scimCode` when it names one). */
export function patchFailure(error: unknown): ScimFailure | null {
  if (!(error instanceof ScimError)) return null
  const scimType = (['noTarget', 'invalidPath', 'invalidValue', 'invalidSyntax'] as const).find((t) => t === error.scimCode) ?? 'invalidValue'
  return fail('bad_request', error.message.slice(0, 300), scimType)
}

/**
 * Applies RFC 7644 section 3.5.2 operations to `resource`; a failure for an operation that does
 * not apply. The PATCH is then a replacement with the patched resource, so one set of rules
 * (what may change, what `active` does) holds for both.
 */
export function applyPatch<T extends { meta: unknown }>(resource: T, patch: PatchInput): { ok: true; resource: T } | ScimFailure {
  try {
    // scim-patch reads `meta.lastModified` only to move it forward; the replacement writes its own
    const patched = scimPatch({ ...resource, meta: { created: new Date(0), lastModified: new Date(0) } } as never, patch.Operations as ScimPatchOperation[], { mutateDocument: false, treatMissingAsAdd: true })
    return { ok: true, resource: patched as T }
  } catch (error) {
    const failure = patchFailure(error)
    if (failure) return failure
    throw error
  }
}

/** PATCH /Users/:id. */
export async function patchScimUser(
  db: Kysely<Database>,
  tenant: ScimTenant,
  scimId: string,
  patch: PatchInput,
  base: ScimBase,
  call: ScimCall,
  ifMatch?: string,
): Promise<{ ok: true; user: ScimUserResource } | ScimFailure> {
  const current = await getScimUser(db, tenant, scimId, base)
  if (!current.ok) return current
  const patched = applyPatch(current.user, patch)
  if (!patched.ok) return patched
  // a PATCH says nothing of what it does not name: the version it read is the one it replaces
  return replaceScimUser(db, tenant, scimId, patched.resource, base, call, ifMatch ?? current.user.meta.version)
}

/**
 * DELETE /Users/:id (RFC 7644 section 3.6): the resource is gone (a later GET is 404) and the
 * person is out of the organization as with `active: false`. The membership row stays, blocked, so
 * the organization's SSO cannot make the person a member again; a later POST of the same
 * `userName` links and reactivates it.
 */
export async function deleteScimUser(db: Kysely<Database>, tenant: ScimTenant, scimId: string, call: ScimCall): Promise<{ ok: true } | ScimFailure> {
  const at = new Date(call.now)
  return inOrgTransaction(db, tenant, async (trx) => {
    const row = await findRow(trx, tenant.orgId, scimId)
    if (!row) return NOT_FOUND
    const failure = await applyActive(trx, tenant, row, false, call, true)
    if (failure) return failure
    await trx.deleteFrom('scim_users').where('org_id', '=', tenant.orgId).where(sql<string>`scim_id::text`, '=', row.scimId).execute()
    await recordScimEvent(trx, { orgId: tenant.orgId, at, action: 'user.deleted', target: row.scimId, details: {} })
    // one event for the deletion, whether or not the membership was active until now: the
    // person's SCIM User is gone (membership.deleted), the membership stays blocked
    await recordScimMemberEvent(trx, tenant, { type: 'org_member_unprovisioned', userId: row.userId, call, at })
    return { ok: true as const }
  }, uniqueConflict)
}

/** The SCIM ids of the organization among `values`, with their accounts and roles (for group membership). */
export async function scimMembersByIds(db: Db, orgId: number, values: readonly string[]) {
  const ids = values.filter((v) => UUID.test(v)).map((v) => v.toLowerCase())
  if (ids.length === 0) return []
  const rows = (await rowsQuery(db, orgId).where(sql<string>`s.scim_id::text`, 'in', ids).execute()) as RawRow[]
  return rows.map(toRow)
}
