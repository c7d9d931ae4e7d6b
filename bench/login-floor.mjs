/**
 * The floor of a password login: the least work any sign-in with a password hash must do, on the
 * same stack as the baselines (h3, pg, jose) and the IAM's own Argon2id threads, to read the login
 * row's ratio against.
 *
 *   POST /login   JSON { email, password }: ONE read of the account by address, Argon2id verify
 *                 with the IAM's production parameters on the IAM's pool of two threads
 *                 (iam/features/passwords/hash-pool.ts; an unknown address verifies against a dummy
 *                 hash), ONE insert of the session with its token's hash, an EdDSA access token
 *                 signed through jose, both set as cookies, 201. A wrong password answers 401.
 *
 * What the IAM's login does beyond it (the admission and its limiters, the device, the audit row,
 * second factors, bans, deletion, the forgiving of earlier failures, the request log):
 * docs/performance.md. Its tables are its own (`floor_accounts`, `floor_sessions`).
 *
 * node bench/login-floor.mjs --database <url> [--setup --email <address> --password <password>]
 * With --setup it creates the tables and the account and exits; without, it serves and prints
 * Nitro's "Listening on" line like the baselines. bench/run.mjs measures it in every round of the
 * `login` row (PostgreSQL), right after the row.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Agent, request as httpRequest } from 'node:http'
import { parseArgs } from 'node:util'
import { hash } from '@node-rs/argon2'
import { createRouter, defineEventHandler, readBody, setResponseStatus } from 'h3'
import { Webhook } from 'standardwebhooks'
import { serve, sessionAnswer } from './lib/floor-server.ts'
import { argon2idPool } from '../iam/features/passwords/hash-pool.ts'

const { values } = parseArgs({
  options: { database: { type: 'string' }, setup: { type: 'boolean' }, email: { type: 'string' }, password: { type: 'string' }, webhooks: { type: 'string' } },
})
if (!values.database?.startsWith('postgres')) throw new Error('--database <postgres url>')
const { default: pg } = await import('pg')

// the IAM's production defaults (iam/lib/config-schema.ts), as the row's raw loop uses
const ARGON2ID = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 }

if (values.setup) {
  if (!values.email || !values.password) throw new Error('--setup needs --email and --password')
  const client = new pg.Client({ connectionString: values.database })
  await client.connect()
  await client.query(`
    create table if not exists floor_accounts (id serial primary key, email text not null unique, password_hash text not null);
    create table if not exists floor_sessions (
      id uuid primary key,
      account_id integer not null references floor_accounts (id),
      token_hash text not null unique,
      created_at timestamptz not null,
      expires_at timestamptz not null
    );`)
  await client.query('insert into floor_accounts (email, password_hash) values ($1, $2)', [values.email.toLowerCase(), await hash(values.password, ARGON2ID)])
  await client.end()
  process.exit(0)
}

// the IAM's pool size (bench/baseline-server.mjs gives SELECT 1 the same)
const db = new pg.Pool({ connectionString: values.database, max: 10 })
const hashes = argon2idPool(2)
// an unknown address costs one verification too, as a login must (no enumeration by timing)
const dummyHash = await hash(randomBytes(16).toString('base64url'), ARGON2ID)
// --webhooks <json>: { "urls": [...], "secrets": [...] }, each sign-in sent to every URL once it is answered
const hooks = values.webhooks ? webhookSender(JSON.parse(values.webhooks)) : null

const router = createRouter().post('/login', defineEventHandler(async (event) => {
  const body = await readBody(event)
  const email = typeof body?.email === 'string' ? body.email.toLowerCase() : ''
  const password = typeof body?.password === 'string' ? body.password : ''
  const { rows } = await db.query({ name: 'floor-account', text: 'select id, password_hash from floor_accounts where email = $1', values: [email] })
  const account = rows[0]
  const outcome = await hashes.run({ kind: 'argon2id-verify', hash: account?.password_hash ?? dummyHash, password, options: ARGON2ID })
  if (!account || outcome.type !== 'done' || !outcome.match) {
    setResponseStatus(event, 401)
    return { error: 'invalid credentials' }
  }
  const token = randomBytes(32).toString('base64url')
  const sessionId = randomUUID()
  await db.query({
    name: 'floor-session',
    text: `insert into floor_sessions (id, account_id, token_hash, created_at, expires_at) values ($1, $2, $3, now(), now() + interval '7 days')`,
    values: [sessionId, account.id, createHash('sha256').update(token).digest('hex')],
  })
  if (hooks) event.node.res.once('finish', () => hooks.send('session.created', { user: { id: String(account.id) }, session: { id: sessionId } }))
  return sessionAnswer(event, { token, subject: String(account.id), sessionId })
}))

serve(router, () => db.end())

/**
 * The least a sign-in's webhooks can cost: each event signed (standardwebhooks) and POSTed to every
 * URL on kept connections, with nothing written, retried or ordered (no outbox: this floor loses
 * what a receiver misses).
 */
function webhookSender({ urls, secrets }) {
  const agent = new Agent({ keepAlive: true, maxSockets: 10 })
  const signers = secrets.map((secret) => new Webhook(secret))
  return {
    send(type, data) {
      const timestamp = new Date()
      const body = JSON.stringify({ type, timestamp: timestamp.toISOString(), data })
      urls.forEach((url, i) => {
        const id = `msg_${randomUUID()}`
        const req = httpRequest(url, {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
            'webhook-signature': signers[i].sign(id, timestamp, body),
          },
        }, (res) => res.resume())
        req.on('error', () => {})
        req.end(body)
      })
    },
  }
}
