/**
 * Growth data for the `--seed` run (bench/README.md): `count` users and `count` API tokens in a migrated IAM database
 * on PostgreSQL, written by the database itself (INSERT ... SELECT generate_series), so a million
 * of each takes about a minute instead of a million round trips.
 *
 * - users: `seed.<n>.<run>@example.com`, verified, one Argon2id hash computed once with the IAM's
 *   production parameters and reused (a real hash of a real password: a login of a seeded user
 *   would verify it).
 * - api_tokens: one per seeded user, privilege `full`, valid; `hashed_token` is the SHA-256 hex of
 *   a distinct raw-token-shaped string, so the unique index holds a million entries shaped like
 *   real ones. The raw strings are not kept (their checksums are not computed): no seeded token is
 *   meant to be used, the benchmark's hot token is created through the IAM.
 * - ANALYZE afterwards, so the planner sees the grown tables.
 *
 * PGlite is not seeded: the IAM holds its PGlite database inside its own process, so nothing else
 * can write to it while it runs; growth runs on PostgreSQL only.
 *
 *   node bench/seed.mjs --database postgres://... [--count 1000000]
 */
import { randomBytes } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { hash } from '@node-rs/argon2'

// the IAM's defaults (iam/lib/config-schema.ts argon2Schema); 2 = Argon2id
const PRODUCTION_ARGON2 = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 }
const BATCH = 250_000

/** Seeds `count` users and tokens into the migrated database at `url`; resolves with what it did and how long it took. */
export async function seedGrowth(url, count) {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const started = performance.now()
  const run = randomBytes(4).toString('hex')
  const passwordHash = await hash('seeded user password 1', PRODUCTION_ARGON2)
  try {
    for (let from = 1; from <= count; from += BATCH) {
      const to = Math.min(count, from + BATCH - 1)
      await client.query('begin')
      const { rows } = await client.query(
        `insert into users (email, name, password_hash, email_verified, terms_consent, roles)
           select 'seed.' || g || '.' || $3 || '@example.com', 'Seed ' || g, $4, true, true, '["user"]'::jsonb
             from generate_series($1::int, $2::int) g
         returning id`,
        [from, to, run, passwordHash],
      )
      const ids = rows.map((row) => row.id)
      await client.query(
        `insert into api_tokens (user_id, name, prefix, hashed_token, public_identifier, privilege_type, valid)
           select u, 'seed', 'api',
                  encode(sha256(convert_to('api_' || md5(u || '.' || $2) || md5($2 || '.' || u) || '_seed' || u, 'UTF8')), 'hex'),
                  'seed' || $2 || '_' || u, 'full', 1
             from unnest($1::int[]) u`,
        [ids, run],
      )
      await client.query('commit')
      process.stderr.write(`seeded ${to.toLocaleString('en-US')} / ${count.toLocaleString('en-US')}\n`)
    }
    await client.query('analyze users')
    await client.query('analyze api_tokens')
    const { rows: sizes } = await client.query(
      `select (select count(*) from users)::int as users, (select count(*) from api_tokens)::int as tokens,
              pg_size_pretty(pg_total_relation_size('users')) as users_size, pg_size_pretty(pg_total_relation_size('api_tokens')) as tokens_size`,
    )
    return { count, seconds: Math.round((performance.now() - started) / 100) / 10, ...sizes[0] }
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    await client.end()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { database: { type: 'string' }, count: { type: 'string', default: '1000000' } } })
  if (!values.database?.startsWith('postgres')) {
    console.error('--database postgres://... (a database the IAM has migrated) is required; PGlite cannot be seeded from outside the IAM')
    process.exit(2)
  }
  console.log(JSON.stringify(await seedGrowth(values.database, Number(values.count))))
}
