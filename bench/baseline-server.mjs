/**
 * The benchmark's baselines, started by the same harness in the same run (bench/README.md):
 *   --mode health               plain h3: GET /health answers {"status":"ok"}
 *   --mode select1 --database   h3 + one `SELECT 1` per request: GET /select1, on PostgreSQL
 *                               (pg pool of 10, as the IAM's) or PGlite in memory (as the IAM's PGlite runs)
 * It prints Nitro's "Listening on" line so scripts/lib/run-server.ts starts it like a built server.
 */
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import { createApp, createRouter, defineEventHandler, toNodeListener } from 'h3'

const { values } = parseArgs({ options: { mode: { type: 'string' }, database: { type: 'string' } } })

async function selectOne(url) {
  if (url.startsWith('postgres')) {
    const { default: pg } = await import('pg')
    const pool = new pg.Pool({ connectionString: url, max: 10 })
    return { query: () => pool.query('select 1 as one'), close: () => pool.end() }
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const db = await PGlite.create()
  return { query: () => db.query('select 1 as one'), close: () => db.close() }
}

const router = createRouter().get('/health', defineEventHandler(() => ({ status: 'ok' })))
let database
if (values.mode === 'select1') {
  if (!values.database) throw new Error('--mode select1 needs --database <url|memory://>')
  database = await selectOne(values.database)
  router.get('/select1', defineEventHandler(async () => ({ one: (await database.query()).rows[0].one })))
} else if (values.mode !== 'health') {
  throw new Error('--mode health | select1')
}

const server = createServer(toNodeListener(createApp().use(router)))
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${server.address().port}`)
})
process.once('SIGTERM', () => server.close(async () => {
  await database?.close()
  process.exit(0)
}))
