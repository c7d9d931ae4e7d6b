/**
 * Load and counting: autocannon runs (a warm-up, then the measured run), statements per request
 * from the IAM's iam_db_statements_total, and on PostgreSQL a per-statement breakdown from
 * pg_stat_statements (calls moved during the measured run, by statement).
 */
import autocannon from 'autocannon'
import { scrapeMetrics } from '../../tests/helpers/prometheus.ts'
import { medianRound, statementsPerRequest } from './report.ts'

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** One autocannon run, as a promise. */
export function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)))
  })
}

/** /metrics, again after a reset: a keep-alive connection the IAM closed under load is not a failure of the run. */
async function scrape(iamUrl, attempts = 3) {
  try {
    return await scrapeMetrics(iamUrl)
  } catch (error) {
    if (attempts <= 1) throw error
    await pause(100)
    return scrape(iamUrl, attempts - 1)
  }
}

/** iam_db_statements_total by kind. */
export async function statementCounts(iamUrl) {
  const metrics = await scrape(iamUrl)
  const at = (kind) => metrics.value('iam_db_statements_total', { kind }) ?? 0
  return { read: at('read'), write: at('write'), transaction: at('transaction') }
}

/** The counts once they stop moving: requests the load generator gave up on at its end still finish. */
async function settledCounts(iamUrl) {
  let last = await statementCounts(iamUrl)
  for (let i = 0; i < 40; i++) {
    await pause(100)
    const next = await statementCounts(iamUrl)
    if (next.read === last.read && next.write === last.write && next.transaction === last.transaction) return next
    last = next
  }
  return last
}

async function statStatements(pg) {
  const { rows } = await pg.client.query(
    `select queryid::text as id, query, calls::float8 as calls, total_exec_time as ms
       from pg_stat_statements
      where dbid = (select oid from pg_database where datname = $1) and query not like '%pg_stat_statements%'`,
    [pg.name],
  )
  return new Map(rows.map((row) => [row.id, row]))
}

/** Statements whose calls moved between two snapshots, per answered request, most frequent first. */
function statementBreakdown(before, after, requests) {
  const moved = []
  for (const [id, row] of after) {
    const calls = row.calls - (before.get(id)?.calls ?? 0)
    if (calls > 0) moved.push({ query: row.query.replace(/\s+/g, ' ').slice(0, 300), perRequest: calls / requests, msPerCall: (row.ms - (before.get(id)?.ms ?? 0)) / calls })
  }
  return moved.sort((a, b) => b.perRequest - a.perRequest)
}

/**
 * Warm-up (unmeasured), then the measured autocannon run of `request` (url, method, headers, body,
 * or `requests` with setupRequest/onResponse). With `iamUrl`, the run's statements per request;
 * with `pg` ({ client, name }), the pg_stat_statements breakdown too.
 */
export async function measure(request, { durationS, warmupS, connections, iamUrl, pg }) {
  if (warmupS > 0) await cannon({ ...request, connections, duration: warmupS })
  const before = iamUrl ? await settledCounts(iamUrl) : undefined
  const statsBefore = pg ? await statStatements(pg) : undefined
  const result = await cannon({ ...request, connections, duration: durationS })
  const run = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes: result.statusCodeStats,
  }
  // requests sent but not answered before the end were still served: divide by what was sent
  const served = Math.max(result.requests.sent, result.requests.total)
  if (before) run.statements = statementsPerRequest(before, await settledCounts(iamUrl), served)
  if (statsBefore) run.pgStatements = statementBreakdown(statsBefore, await statStatements(pg), served)
  return run
}

/**
 * A row and its baseline measured in `rounds` alternating rounds (baseline, row, baseline, row, ...),
 * each side reported by its median round (report.ts medianRound): a slow spell of a shared box
 * then falls on both sides instead of on whichever ran through it. `before`, when given, runs
 * ahead of every round (a queue drained, fresh fixtures).
 */
export async function alternated(rounds, measureRow, measureBaseline, before = async () => {}) {
  const row = []
  const baseline = []
  for (let i = 0; i < rounds; i++) {
    await before(i)
    baseline.push(await measureBaseline(i))
    await before(i)
    row.push(await measureRow(i))
  }
  return { run: medianRound(row), baselineRun: medianRound(baseline) }
}

/** Exactly `amount` requests (for counts that must come out exact); resolves with autocannon's result. */
export function burst(request, { amount, connections }) {
  return cannon({ ...request, connections, amount })
}
