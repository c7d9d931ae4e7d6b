/**
 * The benchmark's arithmetic, kept pure for tests/unit/bench-harness.test.ts: statements per
 * request from two /metrics readings, ratios against a row's baseline, the hot-path table's goals (bench/README.md) with
 * pass/fail, and the printed table.
 */

/** One autocannon (or in-process loop) run: throughput, latency and what came back. */
export interface Run {
  rps: number
  p50: number
  p99: number
  /** answers received (any status) */
  requests: number
  non2xx: number
  errors: number
  /** per answered request, from iam_db_statements_total (IAM rows only) */
  statements?: StatementsPerRequest
  /** answers by status (autocannon's statusCodeStats) */
  statusCodes?: Record<string, { count: number }>
  /** req/s of every round, in the order they ran, when the run is the median of several (medianRound) */
  rounds?: number[]
}

export type StatementKind = 'read' | 'write' | 'transaction'
export type StatementCounts = Record<StatementKind, number>
export interface StatementsPerRequest extends StatementCounts {
  total: number
}

export interface Check {
  goal: string
  actual: string
  pass: boolean
}

export interface Row {
  id: string
  database: string
  label: string
  run?: Run
  baseline?: { label: string; run: Run }
  /** run.rps / baseline.run.rps */
  ratio?: number
  checks: Check[]
  notes: string[]
}

/** The hot-path table's goals (bench/README.md), as numbers. */
export const GOALS = {
  health: { minRatio: 0.5 },
  fullAuth: { minRatio: 0.3, maxStatements: 1, maxWrites: 0 },
  verify: { minRatio: 0.5, maxP99Ms: 15 },
  /** an absolute floor, and a share of h3 + SELECT 1 measured in the same run, as the other IAM rows have */
  refresh: { minRps: 1000, minRatio: 0.15, maxStatements: 5 },
  login: { minRatio: 0.9 },
  gatewaySession: { minRatio: 0.5 },
  /** Keycloak's sizing guide: 120 client-credentials and 120 refresh-token grants per vCPU; this box has 2 */
  oidcClientCredentials: { minRps: 1000 },
  oidcRefresh: { minRps: 500 },
  oidcIntrospect: { minRatio: 0.5 },
  /** the one-statement introspection against the provider's endpoint alone: below a quarter more answers it would not pay for a second implementation of the endpoint */
  oidcIntrospectFastGain: { minRatio: 1.25 },
  /**
   * Through the gateway (every provider request crosses it: the issuer is its origin) against
   * oidc-provider alone on node:http with its clients in a PostgreSQL table (bench/oidc-library.mjs):
   * what a Node team would run instead of us. PostgreSQL only.
   */
  oidcViaGateway: { clientCredentials: { minRatio: 1.0 }, introspect: { minRatio: 2.0 }, refresh: { minRatio: 1.0 } },
  /** sign-up and login with ten endpoints subscribed to every type, against the same IAM without endpoints (PostgreSQL only) */
  webhooks: { endpoints: 10, minRatio: 0.9, throughputEvents: 2000 },
  idleRssMb: { postgres: 150, pglite: 300 },
  /** users:import of 1,000,000 lines on PostgreSQL, in seconds (no hashing at import) */
  importMillion: { lines: 1_000_000, maxSeconds: 300 },
  /** growth: within 20% of the small-table figure */
  growth: { minRatio: 0.8 },
} as const

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits

/** a / b; NaN when b is not positive (no baseline answered: no ratio, and no pass). */
export const ratio = (a: number, b: number): number => (b > 0 ? a / b : Number.NaN)

/**
 * Statements per answered request between two readings of iam_db_statements_total{kind}. Counts,
 * not timings: exact over the run, including the statements of requests the harness did not wait
 * for (the caller reads `after` once the counter has settled).
 */
export function statementsPerRequest(before: StatementCounts, after: StatementCounts, requests: number): StatementsPerRequest {
  if (requests <= 0) throw new RangeError('no request was answered: statements per request are undefined')
  const per = (kind: StatementKind) => {
    const moved = after[kind] - before[kind]
    if (moved < 0) throw new RangeError(`iam_db_statements_total{kind="${kind}"} went backwards: was the IAM restarted?`)
    return moved / requests
  }
  const out = { read: per('read'), write: per('write'), transaction: per('transaction') }
  return { ...out, total: out.read + out.write + out.transaction }
}

/** A check that passes when `actual` (rounded to two decimals) is at least `min`. */
export function atLeast(goal: string, actual: number, min: number, unit = ''): Check {
  return { goal, actual: Number.isNaN(actual) ? 'n/a' : `${round(actual)}${unit}`, pass: !Number.isNaN(actual) && round(actual) >= min }
}

/** A check that passes when `actual` (rounded to two decimals) is at most `max`. */
export function atMost(goal: string, actual: number, max: number, unit = ''): Check {
  return { goal, actual: Number.isNaN(actual) ? 'n/a' : `${round(actual)}${unit}`, pass: !Number.isNaN(actual) && round(actual) <= max }
}

/** Answers came, all 2xx, and no connection failed: otherwise the throughput measures errors (or nothing). */
export function answeredCleanly(run: Run): Check {
  return {
    goal: 'answers, all 2xx, no error',
    actual: `${run.requests} answers, ${run.non2xx} non-2xx, ${run.errors} errors`,
    pass: run.requests > 0 && run.non2xx === 0 && run.errors === 0,
  }
}

/**
 * Answers came, every one with `status`, and no connection failed: for a row whose right answer is
 * no 2xx (an authorization request answers with a redirect to the sign-in step).
 */
export function answeredWith(run: Run, status: number): Check {
  const other = Object.entries(run.statusCodes ?? {}).filter(([code]) => code !== String(status)).reduce((sum, [, { count }]) => sum + count, 0)
  return {
    goal: `answers, all ${status}, no error`,
    actual: `${run.requests} answers, ${other} other, ${run.errors} errors`,
    pass: run.requests > 0 && other === 0 && run.errors === 0 && (run.statusCodes?.[String(status)]?.count ?? 0) > 0,
  }
}

/**
 * Several rounds of one side of a comparison as one run: the round of median req/s (the lower of
 * the two middle ones for an even count) gives the throughput and latencies, while the answers
 * are summed over every round, so a bad answer in any round still fails `answeredCleanly`.
 * Statements per request come from the median round with its throughput.
 */
export function medianRound(runs: Run[]): Run {
  if (runs.length === 0) throw new RangeError('no round to take a median of')
  const median = [...runs].sort((a, b) => a.rps - b.rps)[(runs.length - 1) >> 1]!
  const sum = (pick: (run: Run) => number) => runs.reduce((total, run) => total + pick(run), 0)
  const statusCodes: Record<string, { count: number }> = {}
  for (const run of runs) {
    for (const [code, { count }] of Object.entries(run.statusCodes ?? {})) statusCodes[code] = { count: (statusCodes[code]?.count ?? 0) + count }
  }
  return {
    ...median,
    requests: sum((run) => run.requests),
    non2xx: sum((run) => run.non2xx),
    errors: sum((run) => run.errors),
    ...(runs.some((run) => run.statusCodes) ? { statusCodes } : {}),
    rounds: runs.map((run) => run.rps),
  }
}

/** Rounds' req/s as the notes give them: `1,689, 1,588, 1,621`. */
export const roundsText = (rounds: number[]) => rounds.map((rps) => Math.round(rps).toLocaleString('en-US')).join(', ')

/** A row compared with its baseline: the ratio of req/s and the check of `minRatio`. */
export function againstBaseline(row: Omit<Row, 'ratio' | 'checks'>, minRatio: number, checks: Check[] = []): Row {
  if (!row.run || !row.baseline) throw new Error(`${row.id}: a row against a baseline needs both runs`)
  const r = ratio(row.run.rps, row.baseline.run.rps)
  const rowRounds = row.run.rounds
  const baselineRounds = row.baseline.run.rounds
  return {
    ...row,
    notes: rowRounds && baselineRounds
      ? [...row.notes, `${rowRounds.length} alternated rounds, req/s: the row ${roundsText(rowRounds)}; the baseline ${roundsText(baselineRounds)} (median rounds compared)`]
      : row.notes,
    ratio: r,
    checks: [atLeast(`>= ${minRatio}x of ${row.baseline.label}`, r, minRatio, 'x'), answeredCleanly(row.run), ...checks],
  }
}

/** The statement goals of a row that has them; a failing check when the run has no counts. */
export function statementChecks(run: Run, max: { statements?: number; writes?: number }): Check[] {
  const s = run.statements
  const checks: Check[] = []
  if (max.statements !== undefined) {
    checks.push(s ? atMost(`<= ${max.statements} statements per request`, s.total, max.statements) : { goal: `<= ${max.statements} statements`, actual: 'not counted', pass: false })
  }
  if (max.writes !== undefined) {
    checks.push(s ? atMost(`<= ${max.writes} writes per request`, s.write, max.writes) : { goal: `<= ${max.writes} writes`, actual: 'not counted', pass: false })
  }
  return checks
}

const fmt = (value: number | undefined, digits = 0) =>
  value === undefined || Number.isNaN(value) ? '' : value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

const statementsCell = (s?: StatementsPerRequest) =>
  s ? `${fmt(s.total, 2)} (r ${fmt(s.read, 2)}, w ${fmt(s.write, 2)}, tx ${fmt(s.transaction, 2)})` : ''

/** The rows as a Markdown table (what `npm run bench` prints and RESULTS.md keeps). */
export function formatTable(rows: Row[]): string {
  const head = ['database', 'row', 'req/s', 'p50 ms', 'p99 ms', 'statements / request', 'baseline', 'baseline req/s', 'ratio', 'goals', 'pass']
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i >= 2 && i <= 5 ? '---:' : '---')).join('|')}|`]
  for (const row of rows) {
    const cells = [
      row.database,
      row.label,
      fmt(row.run?.rps),
      fmt(row.run?.p50, 1),
      fmt(row.run?.p99, 1),
      statementsCell(row.run?.statements),
      row.baseline?.label ?? '',
      fmt(row.baseline?.run.rps),
      row.ratio === undefined ? '' : `${fmt(row.ratio, 2)}x`,
      row.checks.map((c) => `${c.goal}: ${c.actual}`).join('; '),
      row.checks.length === 0 ? '' : row.checks.every((c) => c.pass) ? 'PASS' : 'FAIL',
    ]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

/** What bench/RESULTS.md says of the run besides its rows. */
export interface RunFacts {
  /** ISO times */
  started: string
  ended: string
  /** `git rev-parse --short HEAD`, and whether the tree had uncommitted changes */
  commit: string
  dirty: boolean
  /** the command as typed after `npm run bench --` */
  args: string[]
  node: string
  cpus: number
  loadAverageAtStart: number[]
  loadAverageAtEnd: number[]
  durationS: number
  warmupS: number
  connections: number
}

const minute = (iso: string) => iso.slice(11, 16)

/**
 * bench/RESULTS.md for a run of every row: the figures and the facts needed to read them (when,
 * which code, which machine and how loaded), the rows that missed a goal named below the table.
 * Current figures only: why each path costs what it does is docs/performance.md's.
 */
export function resultsPage(rows: Row[], facts: RunFacts): string {
  const load = (values: number[]) => values.map((n) => n.toFixed(2)).join(' ')
  const missed = rows.filter((row) => row.checks.some((c) => !c.pass))
  const command = ['npm run bench', ...(facts.args.length ? ['--', ...facts.args] : [])].join(' ')
  return [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (every row): the latest such run. It replaces this page; a run of some rows (\`--only\`) does not.`,
    '',
    `- **When**: ${facts.started.slice(0, 10)} ${minute(facts.started)}-${minute(facts.ended)} UTC`,
    `- **Code**: \`${facts.commit}\`${facts.dirty ? ' with uncommitted changes' : ''}`,
    `- **Command**: \`${command}\` (${facts.durationS} s per row after a ${facts.warmupS} s warm-up, ${facts.connections} connections)`,
    `- **Machine**: ${facts.cpus} CPUs, Node ${facts.node}, load average ${load(facts.loadAverageAtStart)} at the start and ${load(facts.loadAverageAtEnd)} at the end`,
    '',
    formatTable(rows),
    '',
    missed.length === 0
      ? 'Every row met its goals.'
      : `Missed a goal: ${missed.map((row) => `${row.label} (${row.database}: ${row.checks.filter((c) => !c.pass).map((c) => `${c.goal}: ${c.actual}`).join('; ')})`).join('; ')}.`,
    '',
    'The ratios are against baselines measured in the same run, right before their row; on a shared 2-core machine a row still moves from run to run, the absolute rows most. What each path costs and why: [docs/performance.md](../docs/performance.md).',
    '',
    ...notesSection(rows),
  ].join('\n')
}

/** Each row's notes (its rounds, its floor, what it left undone), under the row's database and label. */
function notesSection(rows: Row[]): string[] {
  const noted = rows.filter((row) => row.notes.length > 0)
  if (noted.length === 0) return []
  return ['## Notes', '', ...noted.map((row) => `- **${row.database}, ${row.label}**: ${row.notes.join('; ')}`), '']
}
