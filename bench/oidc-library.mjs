/**
 * The OpenID Provider rows' baseline (bench/README.md): oidc-provider of the locked version alone,
 * as a Node team would run it instead of us: on node:http, mounted at /oidc, with one PostgreSQL
 * table behind its adapter interface and its clients read from that table (not from its static
 * configuration), so a grant pays the same kind of client read ours does.
 *
 *   node bench/oidc-library.mjs --database postgres://...
 *
 * It prints Nitro's "Listening on" line so scripts/lib/run-server.ts starts it like a built server,
 * and answers GET /bench-fixtures with what the rows need: a confidential client (id and secret)
 * allowed client_credentials, authorization_code and refresh_token, and a refresh token of that
 * client for an account with `openid offline_access` granted (made with the library's own Grant and
 * RefreshToken models, the state the code exchange would leave).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import pg from 'pg'
import Provider from 'oidc-provider'

const { values } = parseArgs({ options: { database: { type: 'string' } } })
if (!values.database?.startsWith('postgres')) throw new Error('--database <postgres://...> is required')

const pool = new pg.Pool({ connectionString: values.database, max: 10 })
const TABLE = 'oidc_library_bench'
await pool.query(`create table if not exists ${TABLE} (
  model text not null, id text not null, payload jsonb not null,
  grant_id text, uid text, user_code text, expires_at timestamptz, consumed_at timestamptz,
  primary key (model, id))`)

/** The library's adapter interface (oidc-provider's docs, "adapter"), one row per stored object. */
class PgAdapter {
  constructor(model) {
    this.model = model
  }

  async upsert(id, payload, expiresIn) {
    await pool.query(
      `insert into ${TABLE} (model, id, payload, grant_id, uid, user_code, expires_at) values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, expires_at = excluded.expires_at`,
      [this.model, id, payload, payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresIn ? new Date(Date.now() + expiresIn * 1000) : null],
    )
  }

  async #one(where, value) {
    const { rows } = await pool.query(
      `select payload, consumed_at from ${TABLE} where model = $1 and ${where} = $2 and (expires_at is null or expires_at > now())`,
      [this.model, value],
    )
    const row = rows[0]
    if (!row) return undefined
    return row.consumed_at ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) } : row.payload
  }

  find(id) {
    return this.#one('id', id)
  }

  findByUid(uid) {
    return this.#one('uid', uid)
  }

  findByUserCode(userCode) {
    return this.#one('user_code', userCode)
  }

  async consume(id) {
    await pool.query(`update ${TABLE} set consumed_at = now() where model = $1 and id = $2`, [this.model, id])
  }

  async destroy(id) {
    await pool.query(`delete from ${TABLE} where model = $1 and id = $2`, [this.model, id])
  }

  async revokeByGrantId(grantId) {
    await pool.query(`delete from ${TABLE} where grant_id = $1`, [grantId])
  }
}

const server = createServer()
await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${server.address().port}`

// ID tokens are RS256 by default: a signing key of its own, as a deployment configures one
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const provider = new Provider(`${origin}/oidc`, {
  adapter: PgAdapter,
  clients: [],
  jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'bench', use: 'sig', alg: 'RS256' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  findAccount: (_ctx, accountId) => ({ accountId, claims: () => ({ sub: accountId }) }),
  // the library's defaults, said outright (it notices when the default functions are called)
  ttl: { Grant: 14 * 24 * 3600, RefreshToken: 14 * 24 * 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
  },
})

// the fixtures: the client as a row of the table, then a grant and a refresh token through the models
const client = { client_id: `bench-${randomBytes(6).toString('hex')}`, client_secret: randomBytes(32).toString('base64url') }
await new PgAdapter('Client').upsert(client.client_id, {
  ...client,
  grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
  response_types: ['code'],
  redirect_uris: ['http://127.0.0.1:9/cb'],
  token_endpoint_auth_method: 'client_secret_basic',
})
const accountId = 'bench-account'
const grant = new provider.Grant({ accountId, clientId: client.client_id })
grant.addOIDCScope('openid offline_access')
const grantId = await grant.save()
const refreshToken = await new provider.RefreshToken({
  accountId,
  client: await provider.Client.find(client.client_id),
  grantId,
  gty: 'authorization_code',
  scope: 'openid offline_access',
  authTime: Math.floor(Date.now() / 1000),
}).save()
const fixtures = JSON.stringify({ client: { id: client.client_id, secret: client.client_secret }, refreshToken })

// mounted at /oidc the way the library's docs mount it under a prefix: the prefix leaves the URL
const callback = provider.callback()
server.on('request', (req, res) => {
  if (req.url === '/bench-fixtures') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(fixtures)
  } else if (req.url.startsWith('/oidc/')) {
    req.url = req.url.slice('/oidc'.length)
    callback(req, res)
  } else {
    res.writeHead(404).end()
  }
})
console.log(`Listening on ${origin}`)

process.once('SIGTERM', () => server.close(async () => {
  await pool.end()
  process.exit(0)
}))
