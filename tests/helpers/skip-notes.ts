/**
 * Why a test is skipped in this run, in its title: appended to the title of a `describe` or `it`
 * whose tests need a server this run has not got (or the other database), so a skipped test says
 * why in every report, and the note is empty in the run that runs it. CI runs the suite twice
 * (.ci/run): on the embedded defaults (PGlite + memory, `npm test`) and against PostgreSQL + Redis
 * with DATABASE_URL and REDIS_URL set; every test skipped by kind in one runs in the other.
 */
const hasPostgres = Boolean(process.env.DATABASE_URL)
const hasRedis = Boolean(process.env.REDIS_URL)

const PG_PASS = "CI's PostgreSQL + Redis pass runs it"

/** What the tests behind a title need from the run. */
export type Needs = 'postgres' | 'redis' | 'postgres+redis' | 'pglite'

/** The reason these tests are skipped in this run, or null when they run. */
export function skipReason(needs: Needs): string | null {
  const postgresMissing = !hasPostgres && needs !== 'redis' && needs !== 'pglite'
  const redisMissing = !hasRedis && needs !== 'postgres' && needs !== 'pglite'
  if (postgresMissing && redisMissing) return `no PostgreSQL and no Redis server in this run (DATABASE_URL and REDIS_URL unset); ${PG_PASS}`
  if (postgresMissing) return `no PostgreSQL server in this run (DATABASE_URL unset); ${PG_PASS}`
  if (redisMissing) return `no Redis server in this run (REDIS_URL unset); ${PG_PASS}`
  if (needs === 'pglite' && hasPostgres) return 'this run is on PostgreSQL (DATABASE_URL set); the embedded pass, npm test, runs it'
  return null
}

/** True when the tests behind a title cannot run here: for `describe.skipIf` / `it.skipIf`. */
export const skippedWithout = (needs: Needs): boolean => skipReason(needs) !== null

/** `title`, with " (skipped: <why>)" when the tests behind it cannot run here. */
export function titled(title: string, needs: Needs): string {
  const reason = skipReason(needs)
  return reason ? `${title} (skipped: ${reason})` : title
}
