/**
 * The benchmark's pure parts (bench/lib): argument parsing, statements per request from two
 * /metrics readings, ratios and the hot-path table's goals (bench/README.md). The benchmark itself is not a test (no timing
 * threshold belongs in the suite); its arithmetic is.
 */
import { describe, expect, it } from 'vitest'
import { parseBenchArgs, ROW_IDS } from '../../bench/lib/options.ts'
import { againstBaseline, answeredWith, atLeast, atMost, formatTable, medianRound, ratio, resultsPage, statementChecks, statementsPerRequest, type RunFacts, type Run } from '../../bench/lib/report.ts'

const run = (over: Partial<Run> = {}): Run => ({ rps: 1000, p50: 5, p99: 12, requests: 10_000, non2xx: 0, errors: 0, ...over })

describe('bench arguments', () => {
  it('defaults to every row, 10 s runs, 50 connections and PGlite only without DATABASE_URL', () => {
    const opts = parseBenchArgs([])
    expect(opts).toMatchObject({ durationS: 10, warmupS: 2, connections: 50, rounds: 3, seed: 0, databases: ['pglite'] })
    expect(opts.only).toEqual([...ROW_IDS])
  })

  it('adds PostgreSQL when DATABASE_URL is set', () => {
    expect(parseBenchArgs([], { DATABASE_URL: 'postgres://x' }).databases).toEqual(['pglite', 'postgres'])
  })

  it('--only keeps the table order and refuses an unknown row', () => {
    expect(parseBenchArgs(['--only', 'verify,health']).only).toEqual(['health', 'verify'])
    expect(() => parseBenchArgs(['--only', 'health,nope'])).toThrow(/unknown row nope/)
  })

  it('refuses a non-numeric or non-positive duration and a fractional connection count', () => {
    expect(() => parseBenchArgs(['--duration', 'ten'])).toThrow(/--duration/)
    expect(() => parseBenchArgs(['--duration', '0'])).toThrow(/--duration/)
    expect(() => parseBenchArgs(['--connections', '2.5'])).toThrow(/--connections/)
    expect(parseBenchArgs(['--duration', '2.5', '--warmup', '0']).durationS).toBe(2.5)
  })

  it('takes a whole number of rounds, at least one', () => {
    expect(parseBenchArgs(['--rounds', '5']).rounds).toBe(5)
    expect(() => parseBenchArgs(['--rounds', '0'])).toThrow(/--rounds/)
    expect(() => parseBenchArgs(['--rounds', '1.5'])).toThrow(/--rounds/)
  })

  it('writes bench/RESULTS.md only when every row runs', () => {
    expect(parseBenchArgs([]).writeResults).toBe(true)
    expect(parseBenchArgs(['--duration', '3']).writeResults).toBe(true)
    expect(parseBenchArgs(['--only', 'health']).writeResults).toBe(false)
  })

  it('refuses an unknown flag (strict parseArgs)', () => {
    expect(() => parseBenchArgs(['--durations', '3'])).toThrow()
  })

  it('runs growth (--seed) and PostgreSQL only with DATABASE_URL', () => {
    expect(() => parseBenchArgs(['--seed', '1000000'])).toThrow(/DATABASE_URL/)
    expect(() => parseBenchArgs(['--databases', 'postgres'])).toThrow(/DATABASE_URL/)
    expect(parseBenchArgs(['--seed', '1000000', '--databases', 'postgres'], { DATABASE_URL: 'postgres://x' })).toMatchObject({ seed: 1_000_000, databases: ['postgres'] })
  })
})

describe('statements per request', () => {
  it('divides what each kind moved by the requests served', () => {
    const per = statementsPerRequest({ read: 100, write: 50, transaction: 10 }, { read: 300, write: 50, transaction: 410 }, 200)
    expect(per).toEqual({ read: 1, write: 0, transaction: 2, total: 3 })
  })

  it('refuses a counter that went backwards (a restarted IAM) and a run with no request', () => {
    expect(() => statementsPerRequest({ read: 5, write: 0, transaction: 0 }, { read: 4, write: 0, transaction: 0 }, 10)).toThrow(/backwards/)
    expect(() => statementsPerRequest({ read: 0, write: 0, transaction: 0 }, { read: 0, write: 0, transaction: 0 }, 0)).toThrow(RangeError)
  })

  it('checks the statement and write goals on the counts, and fails a run that was not counted', () => {
    const counted = run({ statements: { read: 1, write: 0.004, transaction: 0, total: 1.004 } })
    expect(statementChecks(counted, { statements: 1, writes: 0 }).map((c) => c.pass)).toEqual([true, true])
    const twoWrites = run({ statements: { read: 5, write: 2, transaction: 0, total: 7 } })
    expect(statementChecks(twoWrites, { statements: 1, writes: 0 }).map((c) => c.pass)).toEqual([false, false])
    expect(statementChecks(run(), { statements: 5 })[0]).toMatchObject({ pass: false, actual: 'not counted' })
  })
})

describe('ratios and goals', () => {
  it('a ratio needs a baseline that answered', () => {
    expect(ratio(300, 1000)).toBe(0.3)
    expect(ratio(300, 0)).toBeNaN()
    expect(atLeast('>= 0.5x', Number.NaN, 0.5)).toMatchObject({ pass: false, actual: 'n/a' })
  })

  it('compares goals on values rounded to two decimals, inclusive', () => {
    expect(atLeast('>= 0.3x', 0.2996, 0.3).pass).toBe(true)
    expect(atLeast('>= 0.3x', 0.294, 0.3).pass).toBe(false)
    expect(atMost('<= 15 ms', 15, 15).pass).toBe(true)
    expect(atMost('<= 15 ms', 15.2, 15).pass).toBe(false)
  })

  it('a row against its baseline passes only with the ratio met and every answer a 2xx', () => {
    const base = { id: 'health', database: 'PGlite', label: 'IAM GET /health', notes: [] }
    const baseline = { label: 'plain h3 /health', run: run({ rps: 10_000 }) }
    const met = againstBaseline({ ...base, run: run({ rps: 5_000 }), baseline }, 0.5)
    expect(met.ratio).toBe(0.5)
    expect(met.checks.every((c) => c.pass)).toBe(true)
    const errors = againstBaseline({ ...base, run: run({ rps: 6_000, non2xx: 3 }), baseline }, 0.5)
    expect(errors.checks.map((c) => c.pass)).toEqual([true, false])
    const silent = againstBaseline({ ...base, run: run({ rps: 0, requests: 0 }), baseline }, 0.5)
    expect(silent.checks.some((c) => c.pass)).toBe(false)
  })

  it('rounds are reported by the round of median req/s, with the answers of every round counted', () => {
    const rounds = [run({ rps: 900, p99: 30, requests: 9_000 }), run({ rps: 1_200, p99: 10, requests: 12_000 }), run({ rps: 1_000, p99: 20, requests: 10_000, non2xx: 2, statusCodes: { 200: { count: 9_998 }, 500: { count: 2 } } })]
    const merged = medianRound(rounds)
    expect(merged).toMatchObject({ rps: 1_000, p99: 20, requests: 31_000, non2xx: 2, rounds: [900, 1_200, 1_000] })
    expect(merged.statusCodes).toEqual({ 200: { count: 9_998 }, 500: { count: 2 } })
    // an even count takes the lower of the two middle rounds: never the better one by default
    expect(medianRound([run({ rps: 4 }), run({ rps: 1 }), run({ rps: 3 }), run({ rps: 2 })]).rps).toBe(2)
    expect(() => medianRound([])).toThrow(RangeError)
  })

  it('a bad answer in any round fails the row, and the rounds of both sides are in its notes', () => {
    const base = { id: 'health', database: 'PGlite', label: 'IAM GET /health', notes: [] }
    const baseline = { label: 'plain h3 /health', run: medianRound([run({ rps: 10_000 }), run({ rps: 9_000 }), run({ rps: 11_000 })]) }
    const row = againstBaseline({ ...base, run: medianRound([run({ rps: 6_000 }), run({ rps: 5_000, errors: 1 }), run({ rps: 7_000 })]), baseline }, 0.5)
    expect(row.ratio).toBe(0.6)
    expect(row.checks.map((c) => c.pass)).toEqual([true, false])
    expect(row.notes).toEqual(['3 alternated rounds, req/s: the row 6,000, 5,000, 7,000; the baseline 10,000, 9,000, 11,000 (median rounds compared)'])
  })

  it('a row whose right answer is a redirect passes only when every answer has that status', () => {
    expect(answeredWith(run({ non2xx: 40, requests: 40, statusCodes: { 303: { count: 40 } } }), 303).pass).toBe(true)
    expect(answeredWith(run({ non2xx: 40, requests: 40, statusCodes: { 303: { count: 39 }, 400: { count: 1 } } }), 303)).toMatchObject({ pass: false, actual: '40 answers, 1 other, 0 errors' })
    expect(answeredWith(run({ requests: 40, statusCodes: { 303: { count: 40 } }, errors: 2 }), 303).pass).toBe(false)
    expect(answeredWith(run({ requests: 0 }), 303).pass).toBe(false)
  })

  it('prints PASS or FAIL per row', () => {
    const base = { id: 'health', database: 'PGlite', label: 'IAM GET /health', notes: [] }
    const baseline = { label: 'plain h3 /health', run: run({ rps: 10_000 }) }
    const table = formatTable([
      againstBaseline({ ...base, run: run({ rps: 6_000 }), baseline }, 0.5),
      againstBaseline({ ...base, run: run({ rps: 1_000 }), baseline }, 0.5),
    ])
    const lines = table.split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[2]).toMatch(/0\.60x \|.*\| PASS \|$/)
    expect(lines[3]).toMatch(/0\.10x \|.*\| FAIL \|$/)
  })
})

describe('the results page', () => {
  const facts: RunFacts = {
    started: '2026-11-27T14:47:30.000Z', ended: '2026-11-27T14:54:33.000Z', commit: 'abc1234', dirty: false, args: ['--databases', 'postgres'],
    node: 'v22.23.3', cpus: 2, loadAverageAtStart: [1.1, 1.86, 2.01], loadAverageAtEnd: [1.85, 2.13, 2.1], durationS: 10, warmupS: 2, connections: 50,
  }
  const met = againstBaseline({ id: 'health', database: 'PGlite', label: 'IAM GET /health', run: run({ rps: 600 }), baseline: { label: 'plain h3 /health', run: run() }, notes: [] }, 0.5)
  const missed = againstBaseline({ id: 'login', database: 'PGlite', label: 'password login POST /login', run: run({ rps: 700 }), baseline: { label: 'raw Argon2id', run: run() }, notes: [] }, 0.9)

  it('says when, which code, which command and machine, then the table', () => {
    const page = resultsPage([met], facts)
    expect(page).toContain('2026-11-27 14:47-14:54 UTC')
    expect(page).toContain('`abc1234`')
    expect(page).not.toContain('uncommitted')
    expect(page).toContain('`npm run bench -- --databases postgres` (10 s per row after a 2 s warm-up, 50 connections)')
    expect(page).toContain('2 CPUs, Node v22.23.3, load average 1.10 1.86 2.01 at the start and 1.85 2.13 2.10 at the end')
    expect(page).toContain(formatTable([met]))
    expect(page).toContain('Every row met its goals.')
    expect(resultsPage([met], { ...facts, dirty: true, args: [] })).toContain('`abc1234` with uncommitted changes')
  })

  it("lists each row's notes under its database and label, and no notes section when no row has one", () => {
    const noted = againstBaseline({ id: 'refresh', database: 'PostgreSQL + Redis', label: 'refresh rotation', run: run({ rps: 200 }), baseline: { label: 'h3 + SELECT 1', run: run() }, notes: ['the floor: 400/s', 'the row 0.50x of it'] }, 0.15)
    const page = resultsPage([met, noted], facts)
    expect(page).toContain('## Notes\n\n- **PostgreSQL + Redis, refresh rotation**: the floor: 400/s; the row 0.50x of it\n')
    expect(page).not.toContain('**PGlite, IAM GET /health**')
    expect(resultsPage([met], facts)).not.toContain('## Notes')
  })

  it('names each row that missed a goal, with the goal and the figure', () => {
    const page = resultsPage([met, missed], facts)
    expect(page).toContain('Missed a goal: password login POST /login (PGlite: >= 0.9x of raw Argon2id: 0.7x).')
    expect(page).not.toContain('Every row met')
  })
})
