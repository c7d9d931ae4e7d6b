import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { createDatabase } from '../../iam/db/database'
import { configSchema } from '../../iam/lib/config-schema'

async function sharedBuffers(database: Record<string, unknown>): Promise<string> {
  const db = await createDatabase(configSchema.parse({ database }))
  try {
    const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db)
    return rows[0]!.shared_buffers
  } finally {
    await db.destroy()
  }
}

describe('PGlite shared_buffers (database.pgliteSharedBuffers)', () => {
  it('starts the embedded PostgreSQL with 16MB of shared buffers by default, not its own 128MB', async () => {
    expect(await sharedBuffers({ url: 'memory://' })).toBe('16MB')
  }, 60_000)

  it('starts it with the configured size', async () => {
    expect(await sharedBuffers({ url: 'memory://', pgliteSharedBuffers: '32MB' })).toBe('32MB')
  }, 60_000)

  it('refuses a size PostgreSQL would not read as one at config parse', () => {
    for (const bad of ['16', '16mb', '0MB', '-1MB', '16MB; drop', '']) {
      expect(configSchema.safeParse({ database: { pgliteSharedBuffers: bad } }).success).toBe(false)
    }
  })
})
