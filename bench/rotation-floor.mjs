/**
 * The floor of a refresh rotation: the least work any rotation with reuse detection must do, on
 * the same stack as the baselines (h3, pg, jose), to read the refresh row's ratio against.
 *
 *   POST /rotate   cookie `session=<raw>`: the raw token hashed (SHA-256), ONE statement that spends
 *                  the active token and inserts its successor (a data-modifying WITH, its own
 *                  transaction), an EdDSA access token signed through jose, both set as cookies, 201.
 *                  A token that is not active answers 401.
 *
 * What the IAM's rotation does beyond it (the device, the account's roles and bans, the family's
 * lifetime and revocation, the anomaly checks, the grace window for duplicates): docs/performance.md.
 * Its tables are its own (`floor_families`, `floor_tokens`, made by `--setup`), shaped like
 * session_families and refresh_tokens with their keys, and seeded the way the refresh row seeds
 * the IAM's (bench/run.mjs `seedRotationHistory`): history behind every live token, analyzed.
 *
 * node bench/rotation-floor.mjs --database <url> [--setup <families> [--history <spent per family, 500>]]
 * With --setup it creates and seeds the tables, prints `{"tokens": [...]}` (one live token per
 * family) and exits; without, it serves and prints Nitro's "Listening on" line like the baselines.
 * bench/run.mjs measures it in every round of the `refresh` row (PostgreSQL), right after the row.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createRouter, defineEventHandler, getCookie, setResponseStatus } from 'h3'
import { serve, sessionAnswer } from './lib/floor-server.ts'

const { values } = parseArgs({ options: { database: { type: 'string' }, setup: { type: 'string' }, history: { type: 'string' } } })
if (!values.database?.startsWith('postgres')) throw new Error('--database <postgres url>')
const { default: pg } = await import('pg')

const hashOf = (raw) => createHash('sha256').update(raw).digest('hex')
const newToken = () => randomBytes(32).toString('base64url')

if (values.setup) {
  const client = new pg.Client({ connectionString: values.database })
  await client.connect()
  await client.query(`
    create table if not exists floor_families (id uuid primary key, user_id integer not null, created_at timestamptz not null);
    create table if not exists floor_tokens (
      id serial primary key,
      family_id uuid not null references floor_families (id),
      token_hash text not null unique,
      status text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      used_at timestamptz,
      replaced_by integer
    );
    create index if not exists floor_tokens_family_idx on floor_tokens (family_id);
    create unique index if not exists floor_tokens_one_active on floor_tokens (family_id) where status = 'active';`)
  const tokens = []
  for (let i = 0; i < Number(values.setup); i++) {
    const family = randomUUID()
    const raw = newToken()
    await client.query('insert into floor_families (id, user_id, created_at) values ($1, $2, now())', [family, i + 1])
    await client.query(`insert into floor_tokens (family_id, token_hash, status, created_at, expires_at) values ($1, $2, 'active', now(), now() + interval '7 days')`, [family, hashOf(raw)])
    tokens.push(raw)
  }
  await client.query(`
    insert into floor_tokens (family_id, token_hash, status, created_at, expires_at, used_at)
    select f.id, md5(f.id || ':' || i) || md5(i || ':' || f.id), 'rotated', now() - interval '1 day', now() + interval '6 days', now() - interval '1 day'
    from floor_families f cross join generate_series(1, $1::int) as i`, [Number(values.history ?? 500)])
  await client.query('analyze floor_families, floor_tokens')
  await client.end()
  console.log(JSON.stringify({ tokens }))
  process.exit(0)
}

// the IAM's pool size (bench/baseline-server.mjs gives SELECT 1 the same)
const pool = new pg.Pool({ connectionString: values.database, max: 10 })
// spends the active token and files its successor in one statement; the family's user for the claims
const ROTATE = {
  name: 'floor-rotate',
  text: `with old as (
      update floor_tokens set status = 'rotated', used_at = now(), replaced_by = nextval(pg_get_serial_sequence('floor_tokens', 'id'))
      where token_hash = $1 and status = 'active' and expires_at > now()
      returning family_id, replaced_by
    ), inserted as (
      insert into floor_tokens (id, family_id, token_hash, status, created_at, expires_at) overriding system value
      select replaced_by, family_id, $2, 'active', now(), now() + interval '7 days' from old
    )
    select old.family_id, f.user_id from old join floor_families f on f.id = old.family_id`,
}

const router = createRouter().post('/rotate', defineEventHandler(async (event) => {
  const raw = getCookie(event, 'session')
  const next = newToken()
  const { rows } = raw ? await pool.query({ ...ROTATE, values: [hashOf(raw), hashOf(next)] }) : { rows: [] }
  if (!rows.length) {
    setResponseStatus(event, 401)
    return { error: 'no active session' }
  }
  return sessionAnswer(event, { token: next, subject: String(rows[0].user_id), sessionId: rows[0].family_id })
}))

serve(router, () => pool.end())
