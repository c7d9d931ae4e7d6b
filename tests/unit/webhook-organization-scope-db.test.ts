/**
 * An organization's webhook endpoints at the database (migration 0030; features/webhooks/outbox.ts,
 * endpoints-repo.ts), on PGlite with every migration: an event about an organization is queued for
 * that organization's endpoints and the platform's, never another organization's; an event about
 * no organization for the platform's alone; and an organization's catch-all endpoint counts, in
 * the instance's subscription snapshot, only for the types it can hear.
 */
import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Database } from '../../iam/db/schema'
import { configSchema } from '../../iam/lib/config-schema'
import { reloadSubscriptions } from '../../iam/features/webhooks/endpoints'
import { enqueueWebhookEvent } from '../../iam/features/webhooks/outbox'
import { forgetSubscriptions, maybeSubscribed } from '../../iam/features/webhooks/subscriptions'
import { createMigratedDatabase } from '../helpers/test-database'

const config = configSchema.parse({ database: { url: 'memory://' }, secrets: { totpKeys: [{ id: 'k1', key: randomBytes(32).toString('base64url') }] } })

let db: Kysely<Database>
let orgA: string
let orgB: string
const endpointIds: Record<string, number> = {}

async function addEndpoint(name: string, eventTypes: string[], organizationId: string | null): Promise<void> {
  const now = new Date()
  const { id } = await db
    .insertInto('webhook_endpoints')
    .values({ public_id: `ep_${name}`, url: `https://hooks.example.com/${name}`, event_types: JSON.stringify(eventTypes), secret_sealed: 'sealed', organization_id: organizationId, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow()
  endpointIds[name] = id
}

async function newOrganization(slug: string): Promise<string> {
  const row = await db.insertInto('organizations').values({ slug, name: slug }).returning('public_id').executeTakeFirstOrThrow()
  return row.public_id
}

/** The endpoints (by name) an event was queued for. */
async function queuedFor(type: Parameters<typeof enqueueWebhookEvent>[1]['type'], data: Record<string, string>): Promise<string[]> {
  const rows = await enqueueWebhookEvent(db, { type, subject: null, data, at: new Date() })
  const names = Object.fromEntries(Object.entries(endpointIds).map(([name, id]) => [id, name]))
  const written = await db.selectFrom('webhook_deliveries').select('endpoint_id').where('id', 'in', rows.length ? rows.map((r) => r.id) : [0]).execute()
  return written.map((r) => names[r.endpoint_id]!).sort()
}

beforeAll(async () => {
  db = await createMigratedDatabase(config)
  orgA = await newOrganization('org-a')
  orgB = await newOrganization('org-b')
  await addEndpoint('platform', ['*'], null)
  await addEndpoint('a_all', ['*'], orgA)
  await addEndpoint('a_invitations', ['invitation.*'], orgA)
  await addEndpoint('b_all', ['*'], orgB)
}, 60_000)
afterAll(async () => {
  forgetSubscriptions()
  await db?.destroy()
})

describe("an organization's endpoints hear only their organization", () => {
  it("queues an event about organization A for A's endpoints that subscribe to it and the platform's, not B's", async () => {
    expect(await queuedFor('membership.created', { orgId: orgA })).toEqual(['a_all', 'platform'])
    expect(await queuedFor('invitation.created', { orgId: orgA })).toEqual(['a_all', 'a_invitations', 'platform'])
    expect(await queuedFor('invitation.created', { orgId: orgB })).toEqual(['b_all', 'platform'])
  })

  it("queues an event of another family for the platform's endpoints alone, even when it names an organization", async () => {
    expect(await queuedFor('session.created', { orgId: orgA })).toEqual(['platform'])
    expect(await queuedFor('user.updated', {})).toEqual(['platform'])
  })

  it("counts an organization's catch-all in the snapshot only for the families it can hear", async () => {
    await db.updateTable('webhook_endpoints').set({ enabled: false }).where('public_id', '=', 'ep_platform').execute()
    await reloadSubscriptions({ config, db, now: () => Date.now() } as Parameters<typeof reloadSubscriptions>[0])
    expect(['membership.created', 'organization.deleted', 'invitation.accepted'].map(maybeSubscribed)).toEqual([true, true, true])
    expect(['session.created', 'user.created', 'factor.added'].map(maybeSubscribed)).toEqual([false, false, false])
  })
})
