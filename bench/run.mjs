/**
 * `npm run bench`: every row of the hot-path table (bench/README.md) against the production builds (`npm run build`,
 * rebuilt when stale), on PGlite and, with DATABASE_URL, on PostgreSQL (+ Redis with REDIS_URL),
 * each against a baseline started by this harness in the same run. bench/README.md says what each
 * row measures and how statements are counted.
 *
 *   npm run bench -- [--duration 10] [--warmup 2] [--connections 50] [--only row,...]
 *                    [--databases pglite,postgres] [--seed 1000000] [--json report.json]
 */
import { cpus, loadavg, tmpdir } from 'node:os'
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROME_UA, loginUser, newDevice, setCookieValue, signupUser, STRONG_PASSWORD } from '../tests/helpers/accounts.ts'
import { ROOT } from '../scripts/lib/build.ts'
import { alternated, burst, measure } from './lib/load.mjs'
import { parseBenchArgs } from './lib/options.ts'
import { againstBaseline, answeredCleanly, answeredWith, atLeast, atMost, formatTable, GOALS, medianRound, ratio, resultsPage, roundsText, statementChecks } from './lib/report.ts'
import { buildServers, createPgDatabase, rssMb, runIamCli, startBaseline, startDocumentServer, startGateway, startIam, startOidcLibrary } from './lib/servers.mjs'
import { startLoginFloor, startRotationFloor } from './lib/floors.ts'
import { writeImportFile } from './import-file.mjs'
import { seedGrowth } from './seed.mjs'
import { DEFAULT_ARGON2ID_THREADS } from '../iam/features/passwords/hash-pool.ts'
import { refreshTokenFor, registerClient, tokenRequest } from './lib/oidc.mjs'
import { startWebhookReceiver } from '../tests/helpers/webhook-receiver.ts'
import { gatewaySignIn } from './lib/gateway-sign-in.mjs'
import { scrapeMetrics } from '../tests/helpers/prometheus.ts'

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Cookies and bearer of a session, as a browser behind the gateway would send them to the IAM. */
const sessionHeaders = (s) => ({
  'user-agent': s.ua,
  authorization: `Bearer ${s.accessToken}`,
  cookie: `canary_id=${s.canary}; session=${s.refreshToken}`,
})

/** An autocannon request that cycles through `sessions` (many users' sessions, not one hot session). */
function roundRobin(method, path, sessions) {
  let next = 0
  return {
    requests: [{
      method,
      path,
      setupRequest: (req) => ({ ...req, headers: sessionHeaders(sessions[next++ % sessions.length]) }),
    }],
  }
}

/** The raw key and reference of a new API token of `s`'s user. */
async function createToken(iamUrl, s) {
  const res = await fetch(`${iamUrl}/api/manage/new-token`, {
    method: 'POST',
    headers: { ...sessionHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify({ privilege: 'full', name: 'bench' }),
  })
  const body = await res.json()
  if (res.status !== 201) throw new Error(`token creation answered ${res.status}: ${JSON.stringify(body)}`)
  const verified = await fetch(`${iamUrl}/api/public/verify?privilege=full`, { headers: { 'x-api-key': body.data.rawApiKey } })
  const { data } = await verified.json()
  return { raw: body.data.rawApiKey, ref: { tokenId: data.tokenId, publicIdentifier: body.data.rawPublicId, name: data.name } }
}

/** usage_count as the IAM reports it (POST /api/manage/metadata). */
async function usageCount(iamUrl, s, token) {
  const res = await fetch(`${iamUrl}/api/manage/metadata`, {
    method: 'POST',
    headers: { ...sessionHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify(token.ref),
  })
  const body = await res.json()
  if (res.status !== 200) throw new Error(`token metadata answered ${res.status}: ${JSON.stringify(body)}`)
  return body.data.tokenMeta.usageCount
}

/**
 * `amount` verifications in one burst; usage_count must move by exactly the 2xx answers. A count
 * folded in later (batched counting) gets 3 s to arrive.
 */
async function exactCount(iamUrl, s, token, connections, amount = 1000) {
  const before = await usageCount(iamUrl, s, token)
  const result = await burst({ url: `${iamUrl}/api/public/verify?privilege=full`, headers: { 'x-api-key': token.raw } }, { amount, connections })
  const ok = result['2xx']
  let moved = (await usageCount(iamUrl, s, token)) - before
  for (let i = 0; i < 30 && moved !== ok; i++) {
    await pause(100)
    moved = (await usageCount(iamUrl, s, token)) - before
  }
  return { goal: `usage_count exact (${amount} verifications)`, actual: `${ok} answered 2xx, usage_count moved ${moved}`, pass: ok === amount && moved === ok }
}

/** Spent tokens behind each live session in the rotation row (seedRotationHistory). */
const ROTATION_HISTORY_PER_FAMILY = 500

/**
 * Rotated tokens the sessions of a deployment already hold (the rotation row's PostgreSQL database):
 * `perFamily` spent rows behind each live family's active token, then the tables analyzed. Without
 * them the row starts on a refresh_tokens table of a few pages, whose generic plan for the session
 * read scans the table (docs/performance.md, "Refresh rotation"), and it grows it a hundredfold
 * within one autovacuum naptime, which would replan it: a table no deployment has.
 */
async function seedRotationHistory(client, perFamily) {
  await client.query(`
    insert into refresh_tokens (family_id, token_hash, status, created_at, expires_at, used_at)
    select f.id, md5(f.id || ':' || i) || md5(i || ':' || f.id), 'rotated', now() - interval '1 day', now() + interval '6 days', now() - interval '1 day'
    from session_families f cross join generate_series(1, $1::int) as i
    where f.revoked_at is null`, [perFamily])
  await client.query('analyze refresh_tokens, session_families')
}

/** A supply of fresh refresh tokens: every 201 hands back the successor, used once by a later request. */
function rotationChain(tokens, canary, path = '/auth/user/refresh-session') {
  const pool = [...tokens]
  let spent = tokens[0]
  return {
    requests: [{
      method: 'POST',
      path,
      setupRequest: (req) => {
        // an empty pool (every token lost to cut-off requests) replays a spent one: a 401, counted as non-2xx
        spent = pool.shift() ?? spent
        return { ...req, headers: { 'user-agent': CHROME_UA, cookie: `canary_id=${canary}; session=${spent}` } }
      },
      onResponse: (status, _body, _context, headers) => {
        const lines = [headers['set-cookie'] ?? []].flat()
        const next = status === 201 ? setCookieValue({ headers: { getSetCookie: () => lines } }, 'session') : undefined
        if (next) pool.push(next)
      },
    }],
  }
}

/** Runs `n` async jobs, `width` at a time. */
async function inBatches(n, width, job) {
  const out = []
  for (let i = 0; i < n; i += width) out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, k) => job(i + k)))))
  return out
}

/** bench/argon2-loop.mjs with the run's duration and connections; `extra`: more of its options. */
function rawArgon2(opts, extra = []) {
  const child = spawnSync(process.execPath, [join(ROOT, 'bench', 'argon2-loop.mjs'),
    '--duration', String(opts.durationS), '--warmup', String(opts.warmupS), '--concurrency', String(opts.connections), ...extra], { encoding: 'utf8' })
  if (child.status !== 0) throw new Error(`argon2-loop failed: ${child.stderr}`)
  return JSON.parse(child.stdout.trim().split('\n').at(-1))
}

/** VmRSS 3 s after start of an IAM on an on-disk PGlite data dir: its first start and a second one on the same dir. */
async function onDiskIdleRss() {
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-bench-disk-'))
  try {
    const once = async () => {
      const iam = await startIam({ dataDir })
      try {
        await pause(3000)
        return rssMb(iam.child.pid)
      } finally {
        await iam.stop()
      }
    }
    return { first: await once(), again: await once() }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * `users:import` of GOALS.importMillion.lines lines (bench/import-file.mjs: every hash format and
 * lines without one) into a database of its own, migrated first; the import alone is timed, as the
 * command runs it (start, stream, batched inserts, report).
 */
async function importRow(label) {
  const { lines, maxSeconds } = GOALS.importMillion
  const dir = mkdtempSync(join(tmpdir(), 'iam-bench-import-'))
  const db = await createPgDatabase(process.env.DATABASE_URL)
  try {
    const file = join(dir, 'users.jsonl')
    await writeImportFile(file, lines)
    const migrated = await runIamCli(['migrate'], { databaseUrl: db.url })
    if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`)
    const run = await runIamCli(['users:import', file, '--json'], { databaseUrl: db.url })
    if (run.status !== 0) throw new Error(`users:import failed (${run.status}): ${run.stderr.slice(0, 2000)}`)
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1))
    const seconds = run.wallMs / 1000
    const imported = result.imported ?? result.counts?.imported
    return {
      id: 'import',
      database: label,
      label: `users:import of ${lines.toLocaleString('en-US')} lines`,
      checks: [
        atMost(`<= ${maxSeconds} s`, seconds, maxSeconds, ' s'),
        { goal: 'every line imported', actual: `${imported} imported`, pass: imported === lines },
      ],
      notes: [`${Math.round(lines / seconds).toLocaleString('en-US')} lines/s; peak RSS ${run.peakRssMb.toFixed(0)} MB`],
    }
  } finally {
    await db.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A confidential client allowed client_credentials, made with the admin CLI beside the running IAM. */
async function createMachineClient(databaseUrl, dataDir) {
  const run = await runIamCli(['clients:create', '--name', 'bench machine', '--grant', 'client_credentials', '--json'], { databaseUrl, dataDir })
  if (run.status !== 0) throw new Error(`clients:create failed (${run.status}): ${run.stderr}`)
  const { client, clientSecret } = JSON.parse(run.stdout.trim().split('\n').at(-1))
  return { id: client.clientId, secret: clientSecret, authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}` }
}

/**
 * The first authorization of a client known by its metadata document: `GET /oidc/auth` with an
 * https client id, answered with the redirect to the sign-in step (303 to /interaction/<uid>), the
 * document served on loopback by bench/client-document-server.mjs. Cold: a new document URL every
 * request, so each one is fetched (TLS on loopback) and validated; warm: one URL, its document in
 * the provider's cache. An IAM of its own (on the run's PostgreSQL database, or its own PGlite), the
 * only one started with `oidc.allowLoopbackRequests`, the development setting the tests use (a
 * production start refuses it: iam/lib/config.ts), and trusting the document server's certificate.
 */
async function metadataDocumentRows(kind, db, label, load, servers) {
  const redirectUri = 'http://127.0.0.1:9/cb'
  const documents = await startDocumentServer(redirectUri)
  servers.push(documents)
  const iam = await startIam({ databaseUrl: db.url, redisUrl: kind === 'postgres' ? process.env.REDIS_URL : undefined, allowLoopbackRequests: true, env: { NODE_EXTRA_CA_CERTS: documents.cert } })
  servers.push(iam)
  // any PKCE challenge (RFC 7636): the request stops at the sign-in step, no code is redeemed
  const challenge = randomBytes(32).toString('base64url')
  const authorize = (clientId) => `/oidc/auth?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', code_challenge: challenge, code_challenge_method: 'S256' })}`
  const run = randomBytes(4).toString('hex')
  let next = 0
  const fresh = () => `${documents.origin}/agent/${run}-${next++}/client.json`
  const warmId = `${documents.origin}/agent/${run}-warm/client.json`
  // one request of each first: a 303 to the interaction, or the row stops with what was answered
  for (const clientId of [fresh(), warmId]) {
    const res = await fetch(`${iam.url}${authorize(clientId)}`, { redirect: 'manual' })
    if (res.status !== 303 || !/\/interaction\//.test(res.headers.get('location') ?? '')) throw new Error(`the authorization request answered ${res.status} ${res.headers.get('location') ?? (await res.text()).slice(0, 500)}`)
  }
  const counted = { ...load, iamUrl: iam.url }
  // warm first: the provider's document cache keeps the last 100 documents (oidc-provider's LRU),
  // which the cold run's new URLs push the warm one out of
  const beforeWarm = await documents.fetches()
  const warm = await measure({ url: `${iam.url}${authorize(warmId)}` }, counted)
  const warmFetches = (await documents.fetches()) - beforeWarm
  const beforeCold = await documents.fetches()
  const firstCold = next
  const cold = await measure({ url: iam.url, requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: authorize(fresh()) }) }] }, counted)
  // the URLs made (warm-up and measured run); those of requests cut off at the end may still be fetching
  const coldUrls = next - firstCold
  const coldFetches = (await documents.fetches()) - beforeCold
  const what = 'first authorization of a metadata-document client GET /oidc/auth'
  return [
    {
      id: 'oidc-client-metadata-document-warm', database: label, label: `${what}, document cached (one URL)`, run: warm,
      // max-age=300 is longer than any run: a fetch here means the cache was not used
      checks: [answeredWith(warm, 303), { goal: 'no document fetched (cached)', actual: `${warmFetches} fetched`, pass: warmFetches === 0 }],
      notes: [],
    },
    {
      id: 'oidc-client-metadata-document', database: label, label: `${what}, document fetched (a new URL each request)`, run: cold,
      baseline: { label: 'the same, document cached', run: warm }, ratio: ratio(cold.rps, warm.rps),
      // at least one fetch per URL: a loaded run saw a few more fetches than URLs (155 for 151 on
      // PostgreSQL at load average 24; the authorization endpoint resolves its client once, so
      // likely requests sent again after a timeout of the warm-up), which the cold path may pay
      checks: [answeredWith(cold, 303), { goal: 'a document fetched per new URL', actual: `${coldFetches} fetched for ${coldUrls} URLs`, pass: coldFetches >= coldUrls - load.connections }],
      notes: ['no throughput goal: a client is fetched once per cache lifetime (its max-age, 30 s to a day), so the cold path is paid per new agent, not per request; the ratio says what a cache miss costs'],
    },
  ]
}

/** The webhook login row's floor: its rounds with ten endpoints against without, and their medians' ratio. */
function floorNote({ plain, hooked }, deliveries) {
  const [withTen, without] = [medianRound(hooked), medianRound(plain)]
  return `${deliveries}; the floor (bench/login-floor.mjs: a bare sign-in, and one that also sends each sign-in signed to ten receiver paths once answered, with nothing written, retried or ordered), each round after the row: ${roundsText(withTen.rounds)}/s with the ten against ${roundsText(without.rounds)}/s without, median ${ratio(withTen.rps, without.rps).toFixed(2)}x`
}

/**
 * The webhook rows (PostgreSQL only: the admin CLI grants the administrator role beside the running
 * IAM). Each IAM has a database and data dir of its own, webhooks on with their defaults (poll,
 * batch, deadline) and a receiver on loopback let in the way the tests let theirs in
 * (`webhooks.allowHttp` and `webhooks.allowAddresses`, refused in production: iam/lib/config.ts).
 * The receiver (tests/helpers/webhook-receiver.ts) answers 200 at once and verifies every delivery
 * with the `standardwebhooks` package and the secret of its endpoint.
 */
async function webhookRows(opts, label, load, servers, want) {
  const { endpoints, minRatio, throughputEvents } = GOALS.webhooks
  // verified when a row is checked, not as each delivery arrives: the receiver stands for a team's
  // system, which runs elsewhere, not on the two cores the IAM is measured on
  const receiver = await startWebhookReceiver('127.0.0.1', { deferVerification: true })
  servers.push({ stop: () => receiver.stop() })
  const hooksConfig = { webhooks: { enabled: true, allowHttp: true, allowAddresses: ['127.0.0.1/32'] } }
  const own = async (extra = {}) => {
    const db = await createPgDatabase(process.env.DATABASE_URL)
    const dataDir = mkdtempSync(join(tmpdir(), 'iam-bench-hooks-'))
    servers.push({ stop: async () => { await db.drop(); rmSync(dataDir, { recursive: true, force: true }) } })
    const start = async (webhooks = {}) => {
      const iam = await startIam({ databaseUrl: db.url, redisUrl: process.env.REDIS_URL, dataDir, overrides: { webhooks: { ...hooksConfig.webhooks, ...extra, ...webhooks } } })
      servers.push(iam)
      return iam
    }
    return { db, dataDir, iam: await start(), start }
  }
  // a platform administrator (users:grant-admin), signed in after the grant: the admin routes want a recent sign-in
  const adminOf = async ({ db, dataDir, iam }, device) => {
    const made = await signupUser(iam, { client: device })
    const granted = await runIamCli(['users:grant-admin', made.email], { databaseUrl: db.url, dataDir })
    if (granted.status !== 0) throw new Error(`users:grant-admin failed (${granted.status}): ${granted.stderr}`)
    return loginUser(iam, made.email, made.password, device)
  }
  const asAdmin = async (iam, admin, method, path, body) => {
    const res = await fetch(`${iam.url}${path}`, { method, headers: { ...sessionHeaders(admin), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    const answer = await res.json()
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`)
    return answer.data
  }
  /** `endpoints` endpoints subscribed to every type, each at a path of its own on the receiver; their ids. */
  const subscribe = async (iam, admin, tag) => {
    const ids = []
    for (let i = 0; i < endpoints; i++) {
      const path = `/${tag}/${i}`
      const { endpoint, secret } = await asAdmin(iam, admin, 'POST', '/admin/webhooks', { url: `${receiver.base}${path}`, eventTypes: ['*'] })
      receiver.secrets.set(path, [secret])
      ids.push(endpoint.id)
    }
    return ids
  }
  const verifiedCheck = (tag) => {
    receiver.verifyReceived()
    const got = receiver.received.filter((r) => r.path.startsWith(`/${tag}/`))
    const failed = got.filter((r) => r.error !== null).length
    return { goal: 'deliveries arrived, every one verified (standardwebhooks)', actual: `${got.length} received, ${failed} not verified`, pass: got.length > 0 && failed === 0 }
  }
  const rows = []

  if (want('webhooks-login') || want('webhooks-signup')) {
    // the same config on both; only the one with endpoints queues and delivers
    const plain = await own()
    const hooked = await own()
    const devices = { plain: await newDevice(plain.iam), hooked: await newDevice(hooked.iam) }
    await subscribe(hooked.iam, await adminOf(hooked, devices.hooked), 'rows')
    const users = { plain: await signupUser(plain.iam, { client: devices.plain }), hooked: await signupUser(hooked.iam, { client: devices.hooked }) }
    const headers = (device) => ({ 'user-agent': device.ua, 'content-type': 'application/json', cookie: `canary_id=${device.canary}` })
    const iamOf = (which) => (which === 'plain' ? plain : hooked).iam
    // the existing login row's request, to each IAM
    const loginAt = (which) => measure({ url: `${iamOf(which).url}/login`, method: 'POST', headers: headers(devices[which]),
      body: JSON.stringify({ email: users[which].email, password: STRONG_PASSWORD }) }, { ...load, iamUrl: iamOf(which).url })
    // a new address every request, as a crowd signing up would send
    const run = randomBytes(4).toString('hex')
    let next = 0
    const signupAt = (which) => {
      const iam = iamOf(which)
      return measure({ url: iam.url, requests: [{ method: 'POST', path: '/signup', headers: headers(devices[which]),
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: `bench.${run}.${next++}@example.com`, password: STRONG_PASSWORD, confirmedPassword: STRONG_PASSWORD, name: 'Bench User', termsConsent: 'on' }) }) }] }, { ...load, iamUrl: iam.url })
    }
    // the previous row's queue delivered first (up to a minute), so its backlog is not this row's
    // load; what is left is in the notes
    const pending = async () => (await scrapeMetrics(hooked.iam.url)).value('iam_webhook_queue_pending') ?? 0
    const drained = async () => {
      const deadline = Date.now() + 60_000
      while ((await pending()) > 0 && Date.now() < deadline) await pause(200)
      return pending()
    }
    const compare = async (id, text, measureAt, floorAt) => {
      // alternated, each round after the queue drained: a backlog delivered while the plain IAM
      // is measured would slow the baseline instead of the row
      const left = []
      // what a round queued and did not send within it: sent after the round, outside its measure
      const behind = []
      const floorRounds = { plain: [], hooked: [] }
      const hookedRound = async () => {
        const run = await measureAt('hooked')
        behind.push(await pending())
        if (floorAt) {
          // the IAM's backlog sent first, so that the floors do not share the box with it
          await drained()
          for (const which of ['plain', 'hooked']) floorRounds[which].push(await floorAt(which))
        }
        return run
      }
      const { run: measured, baselineRun } = await alternated(opts.rounds, hookedRound, () => measureAt('plain'), async () => { left.push(await drained()) })
      const baseline = { label: 'the same IAM config, no endpoint', run: baselineRun }
      rows.push(againstBaseline({ id, database: label, label: `${text} with ${endpoints} webhook endpoints subscribed to *`, run: measured, baseline,
        notes: [`the delivery worker sends to the receiver while the row runs (webhooks defaults: poll 1 s, 20 in flight); at most ${Math.max(...left)} deliveries of an earlier round still queued at a round's start; the statements include the worker's`,
          `deliveries still queued at the end of each round, sent after it (work outside the row's measure): ${behind.join(', ')}`,
          ...(floorAt ? [floorNote(floorRounds, verifiedCheck('floor').actual + ' to the floor')] : [])] },
        minRatio, [verifiedCheck('rows')]))
    }
    // sign-up first: its events are about a new account each and drain in parallel; the login row's
    // are all about one account, delivered in order one at a time per endpoint
    // (features/webhooks/deliver.ts), so its backlog outlasts the row
    if (want('webhooks-signup')) await compare('webhooks-signup', 'sign-up POST /signup', signupAt)
    if (want('webhooks-login')) {
      // the floor of the same comparison (bench/login-floor.mjs): a bare sign-in, and one that also
      // sends ten signed deliveries to the same receiver with no outbox, each round after the row
      const urls = []
      const secrets = []
      for (let i = 0; i < endpoints; i++) {
        const secret = `whsec_${randomBytes(32).toString('base64')}`
        urls.push(`${receiver.base}/floor/${i}`)
        secrets.push(secret)
        receiver.secrets.set(`/floor/${i}`, [secret])
      }
      const floorUser = { email: `floor.${run}@example.com`, password: STRONG_PASSWORD }
      // a database each, dropped after its floor stops (servers stop in reverse)
      const floorOn = async (webhooks) => {
        const db = await createPgDatabase(process.env.DATABASE_URL)
        servers.push({ stop: () => db.drop() })
        const floor = await startLoginFloor(db.url, floorUser.email, floorUser.password, webhooks)
        servers.push(floor)
        return floor
      }
      const floors = { plain: await floorOn(), hooked: await floorOn({ urls, secrets }) }
      const floorAt = (which) => measure({ url: `${floors[which].url}/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(floorUser) }, load)
      await compare('webhooks-login', 'password login POST /login', loginAt, floorAt)
    }
  }

  if (want('webhooks-throughput')) {
    // queued by an IAM without the worker, delivered by a second instance on the same database and
    // data dir (the key that seals the endpoints' secrets) started once the queue is full
    const producer = await own({ worker: false })
    const device = await newDevice(producer.iam)
    const admin = await adminOf(producer, device)
    const ids = await subscribe(producer.iam, admin, 'throughput')
    // webhook.test events (POST /admin/webhooks/:endpointId/test): a real delivery each, without
    // a password hash per event; spread over the endpoints, a few in flight at a time
    await inBatches(throughputEvents, 8, (i) => asAdmin(producer.iam, admin, 'POST', `/admin/webhooks/${ids[i % ids.length]}/test`))
    const at = () => receiver.received.filter((r) => r.path.startsWith('/throughput/'))
    if (at().length !== 0) throw new Error('a delivery arrived before the worker started')
    await producer.start({ worker: true })
    const deadline = Date.now() + 300_000
    const arrivals = []
    let seen = 0
    while (seen < throughputEvents && Date.now() < deadline) {
      const now = at().length
      if (now > seen) arrivals.push({ at: performance.now(), count: now })
      seen = now
      await pause(20)
    }
    const received = at()
    // from the first delivery to the last: the second instance's start (boot, migrations check) is not delivery
    const first = arrivals[0]
    const last = arrivals.at(-1)
    const seconds = first && last && last.at > first.at ? (last.at - first.at) / 1000 : Number.NaN
    const perSecond = (last?.count - first?.count) / seconds
    const distinct = new Set(received.map((r) => r.headers['webhook-id']))
    rows.push({ id: 'webhooks-throughput', database: label, label: `webhook delivery throughput, ${throughputEvents.toLocaleString('en-US')} queued deliveries to ${endpoints} endpoints`,
      checks: [
        { goal: `all ${throughputEvents} delivered once (deliveries/s: no goal)`,
          actual: `${received.length} received, ${distinct.size} distinct; ${Number.isNaN(perSecond) ? 'n/a' : Math.round(perSecond).toLocaleString('en-US')} deliveries/s`,
          pass: received.length === throughputEvents && distinct.size === throughputEvents },
        verifiedCheck('throughput'),
      ],
      notes: [`deliveries/s from the first arrival to the last (${seconds.toFixed(2)} s), one instance, webhooks defaults (20 in flight, 10 s deadline); no goal: the figure says how fast a backlog drains`] })
  }
  return rows
}

async function runDatabase(kind, opts, report) {
  const db = kind === 'postgres' ? await createPgDatabase(process.env.DATABASE_URL) : { url: 'memory://', name: undefined, statStatements: false, drop: async () => {} }
  // on PostgreSQL the admin CLI runs beside the IAM on its data dir (machine clients are the
  // operator's to register: dynamic registration refuses client_credentials)
  const dataDir = mkdtempSync(join(tmpdir(), 'iam-bench-'))
  const iam = await startIam({ databaseUrl: db.url, redisUrl: kind === 'postgres' ? process.env.REDIS_URL : undefined, dataDir })
  const servers = [iam]
  let pg
  const rows = []
  const label = kind === 'postgres' ? `PostgreSQL${process.env.REDIS_URL ? ' + Redis' : ''}` : 'PGlite'
  const want = (id) => opts.only.includes(id)
  try {
    if (db.statStatements) {
      const { default: pgLib } = await import('pg')
      pg = { client: new pgLib.Client({ connectionString: db.url }), name: db.name }
      await pg.client.connect()
    }
    const load = { durationS: opts.durationS, warmupS: opts.warmupS, connections: opts.connections }
    const counted = { ...load, iamUrl: iam.url, pg }
    if (want('idle-rss')) {
      await pause(3000)
      const max = GOALS.idleRssMb[kind]
      const running = rssMb(iam.child.pid)
      // PGlite as `npm start` runs it: on disk, started a second time (the first start also runs initdb)
      const onDisk = kind === 'pglite' ? await onDiskIdleRss() : undefined
      const measured = onDisk ? onDisk.again : running
      const notes = onDisk ? [`on-disk data dir (the embedded default); first start ${onDisk.first.toFixed(0)} MB; in memory (memory://, the PGlite rows' database) ${running.toFixed(0)} MB`] : []
      rows.push({ id: 'idle-rss', database: label, label: 'idle RSS after start', checks: [atMost(`<= ${max} MB`, measured, max, ' MB')], notes })
    }
    // fixtures: one device, one user, a few sessions (full authentication cycles through them)
    const device = await newDevice(iam)
    const user = await signupUser(iam, { client: device })
    const tenSessions = async (of) => [of, ...(await inBatches(9, 3, () => loginUser(iam, of.email, of.password, device)))]
    const sessions = await tenSessions(user)
    // started once, measured again for every row that uses it, right before that row: the box's
    // speed drifts over a run of several minutes, and a row compared with a baseline measured
    // minutes earlier would carry that drift in its ratio
    let select1Server
    const selectOne = async () => {
      if (!select1Server) {
        select1Server = await startBaseline('select1', db.url)
        servers.push(select1Server)
      }
      return { label: 'h3 + SELECT 1', run: await measure({ url: `${select1Server.url}/select1` }, load) }
    }
    /** `row` against h3 + SELECT 1 in alternated rounds: the row's run and the baseline */
    const againstSelectOne = async (row) => {
      const { run, baselineRun } = await alternated(opts.rounds, row, async () => (await selectOne()).run)
      return { run, baseline: { label: 'h3 + SELECT 1', run: baselineRun } }
    }
    const small = {}

    if (want('health')) {
      const plain = await startBaseline('health')
      servers.push(plain)
      const { run, baselineRun } = await alternated(opts.rounds, () => measure({ url: `${iam.url}/health` }, counted), () => measure({ url: `${plain.url}/health` }, load))
      const baseline = { label: 'plain h3 /health', run: baselineRun }
      rows.push(againstBaseline({ id: 'health', database: label, label: 'IAM GET /health', run, baseline, notes: [] }, GOALS.health.minRatio))
    }
    const fullAuth = (of = sessions) => measure({ url: iam.url, ...roundRobin('GET', '/secret/data', of) }, counted)
    if (want('full-auth')) {
      const { run, baseline } = await againstSelectOne(() => fullAuth())
      small.fullAuth = run
      rows.push(againstBaseline({ id: 'full-auth', database: label, label: 'full authentication GET /secret/data', run: small.fullAuth, baseline, notes: [] },
        GOALS.fullAuth.minRatio, statementChecks(small.fullAuth, { statements: GOALS.fullAuth.maxStatements, writes: GOALS.fullAuth.maxWrites })))
    }
    let token
    const verify = () => measure({ url: `${iam.url}/api/public/verify?privilege=full`, headers: { 'x-api-key': token.raw } }, counted)
    if (want('verify')) {
      token = await createToken(iam.url, user)
      const { run, baseline } = await againstSelectOne(() => verify())
      small.verify = run
      rows.push(againstBaseline({ id: 'verify', database: label, label: 'counted API token verify, one hot token', run: small.verify, baseline, notes: [] },
        GOALS.verify.minRatio, [atMost(`p99 <= ${GOALS.verify.maxP99Ms} ms`, small.verify.p99, GOALS.verify.maxP99Ms, ' ms'), await exactCount(iam.url, user, token, opts.connections)]))
    }
    if (want('refresh')) {
      // twice the connections: the requests cut off at the end of the warm-up take their successors
      // with them; sessions of their own for every round, for the same reason
      const fresh = []
      for (let i = 0; i < opts.rounds; i++) fresh.push(await inBatches(2 * opts.connections, 4, () => loginUser(iam, user.email, user.password, device)))
      if (pg) await seedRotationHistory(pg.client, ROTATION_HISTORY_PER_FAMILY)
      // on PostgreSQL, the floor of any rotation (bench/rotation-floor.mjs) measured in every round
      // right after the row: what the goal asks of the row, read against what nothing can go below
      const floor = pg ? await startRotationFloor(db.url, opts.rounds * 2 * opts.connections, ROTATION_HISTORY_PER_FAMILY) : null
      if (floor) servers.push(floor)
      const floorRounds = []
      const { run, baseline } = await againstSelectOne(async (i) => {
        const row = await measure({ url: iam.url, ...rotationChain(fresh[i].map((s) => s.refreshToken), device.canary) }, counted)
        if (floor) floorRounds.push(await measure({ url: floor.url, ...rotationChain(floor.tokens.slice(i * 2 * opts.connections, (i + 1) * 2 * opts.connections), device.canary, '/rotate') }, load))
        return row
      })
      const floorRun = floorRounds.length ? medianRound(floorRounds) : null
      const floorNotes = floorRun ? [
        `the floor of a rotation (bench/rotation-floor.mjs: h3, one statement that spends the token and files its successor, one EdDSA signature, no check), each round right after the row: ${roundsText(floorRun.rounds)}/s, median ${ratio(floorRun.rps, baseline.run.rps).toFixed(2)}x of h3 + SELECT 1; the row ${ratio(run.rps, floorRun.rps).toFixed(2)}x of the floor`,
      ] : []
      rows.push(againstBaseline({ id: 'refresh', database: label, label: 'refresh rotation POST /auth/user/refresh-session', run, baseline, notes: floorNotes }, GOALS.refresh.minRatio,
        [atLeast(`>= ${GOALS.refresh.minRps} req/s`, run.rps, GOALS.refresh.minRps, '/s'), ...statementChecks(run, { statements: GOALS.refresh.maxStatements })]))
    }
    const login = () => measure({ url: `${iam.url}/login`, method: 'POST', headers: { 'user-agent': device.ua, 'content-type': 'application/json', cookie: `canary_id=${device.canary}` },
      body: JSON.stringify({ email: user.email, password: STRONG_PASSWORD }) }, counted)
    let argon2
    if (want('login')) {
      // on PostgreSQL, the floor of any password login (bench/login-floor.mjs), each round right after the row
      const floor = pg ? await startLoginFloor(db.url, user.email, STRONG_PASSWORD) : null
      if (floor) servers.push(floor)
      const floorRounds = []
      const { run, baselineRun } = await alternated(opts.rounds, async () => {
        const row = await login()
        if (floor) floorRounds.push(await measure({ url: `${floor.url}/login`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, password: STRONG_PASSWORD }) }, load))
        return row
      }, async () => rawArgon2(opts))
      small.login = run
      const floorRun = floorRounds.length ? medianRound(floorRounds) : null
      argon2 = { label: 'raw Argon2id verify (same parameters)', run: baselineRun }
      // the same loop on the IAM's own pool, at its default width: how much of the row is the hash
      const threads = DEFAULT_ARGON2ID_THREADS
      const pooled = rawArgon2(opts, ['--threads', String(threads)])
      rows.push(againstBaseline({ id: 'login', database: label, label: 'password login POST /login', run: small.login, baseline: argon2,
        notes: [
          `raw verify: ${opts.connections} in flight, the library's async verify on libuv's pool (UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE ?? 4}), as it runs by default`,
          `the same loop on the IAM's pool of ${threads} threads: ${Math.round(pooled.rps)}/s (login ${ratio(small.login.rps, pooled.rps).toFixed(2)}x of it)`,
          ...(floorRun ? [`the floor of a password login (bench/login-floor.mjs: h3, one read, Argon2id on the IAM's pool, one insert, one EdDSA signature, no check), each round right after the row: ${roundsText(floorRun.rounds)}/s, median ${ratio(floorRun.rps, argon2.run.rps).toFixed(2)}x of the raw verify; the row ${ratio(small.login.rps, floorRun.rps).toFixed(2)}x of the floor`] : []),
        ] }, GOALS.login.minRatio))
    }
    let gatewayServer
    const gatewayOnce = async () => {
      if (!gatewayServer) {
        gatewayServer = await startGateway(iam.url)
        servers.push(gatewayServer)
      }
      return gatewayServer
    }
    if (want('gateway-session')) {
      const gateway = await gatewayOnce()
      // a user of its own: by now the bench user holds a thousand sessions from the login and
      // refresh rows, which slow the IAM's read on both sides and flatter the gateway's share
      const own = await signupUser(iam, { client: device })
      const ownSessions = await tenSessions(own)
      const cookie = await gatewaySignIn(gateway.url, own.email, own.password)
      const probe = await (await fetch(`${gateway.url}/api/auth/session`, { headers: { cookie, 'user-agent': CHROME_UA } })).json()
      if (probe.authenticated !== true) throw new Error(`the gateway does not see the session: ${JSON.stringify(probe)}`)
      const { run, baselineRun } = await alternated(opts.rounds, () => measure({ url: `${gateway.url}/api/auth/session`, headers: { cookie, 'user-agent': CHROME_UA } }, counted),
        () => measure({ url: iam.url, ...roundRobin('GET', '/secret/accesstoken/metadata', ownSessions) }, counted))
      const baseline = { label: 'IAM /secret/accesstoken/metadata', run: baselineRun }
      rows.push(againstBaseline({ id: 'gateway-session', database: label, label: 'gateway GET /api/auth/session', run, baseline,
        notes: ['HMAC off between gateway and IAM in the bench (unsigned calls to the IAM in both runs)'] }, GOALS.gatewaySession.minRatio))
    }
    if (want('oidc-client-credentials') || want('oidc-refresh') || want('oidc-introspect')) {
      const form = (client, params, endpoint = '/oidc/token', base = iam.url) => ({
        url: `${base}${endpoint}`,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: client.authorization },
        body: new URLSearchParams(params).toString(),
      })
      // a machine client is the operator's to register (clients:create; dynamic registration
      // refuses client_credentials): on PostgreSQL only, where the CLI reaches the run's database
      const machine = kind === 'postgres' ? await createMachineClient(db.url, dataDir) : undefined
      // on PostgreSQL: the same requests through the gateway against oidc-provider alone, each
      // library run right before the rows compared with it
      let library
      if (kind === 'postgres') {
        library = await startOidcLibrary(db.url)
        servers.push(library)
      }
      const gateway = kind === 'postgres' ? await gatewayOnce() : undefined
      const viaGateway = (id, text, request, libraryRequest, minRatio, notes = []) =>
        againstBaseline({ id, database: label, label: `${text}, through the gateway`, run: request, baseline: { label: 'oidc-provider alone, clients in PostgreSQL', run: libraryRequest }, notes }, minRatio)
      /** the request through the gateway against the library alone, alternated: { through, alone }, or the library alone once without a gateway (PGlite) */
      const throughAndAlone = async (through, alone) => {
        if (!library) return {}
        const { run, baselineRun } = await alternated(opts.rounds, through, alone)
        return { through: run, alone: baselineRun }
      }
      if (want('oidc-client-credentials') && machine) {
        const { through, alone } = await throughAndAlone(() => measure(form(machine, { grant_type: 'client_credentials' }, '/oidc/token', gateway.url), counted),
          () => measure(form(library.client, { grant_type: 'client_credentials' }, '/oidc/token', library.url), load))
        const run = await measure(form(machine, { grant_type: 'client_credentials' }), counted)
        rows.push({ id: 'oidc-client-credentials', database: label, label: 'OpenID client-credentials grant POST /oidc/token', run,
          checks: [atLeast(`>= ${GOALS.oidcClientCredentials.minRps} req/s`, run.rps, GOALS.oidcClientCredentials.minRps, '/s'), answeredCleanly(run)],
          notes: alone ? [`${ratio(run.rps, alone.rps).toFixed(2)}x of oidc-provider alone (${Math.round(alone.rps)} req/s) at the IAM, without the gateway`] : [] })
        if (through) rows.push(viaGateway('oidc-client-credentials-gateway', 'OpenID client-credentials grant', through, alone, GOALS.oidcViaGateway.clientCredentials.minRatio))
      }
      if (want('oidc-refresh')) {
        const redirectUri = 'http://127.0.0.1:9/cb'
        const web = await registerClient(iam.url, { client_name: 'bench web', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], redirect_uris: [redirectUri] })
        const issuer = (await (await fetch(`${iam.url}/oidc/.well-known/openid-configuration`)).json()).issuer
        const refreshToken = await refreshTokenFor(iam.url, issuer, web, redirectUri, user)
        // a confidential client's refresh token is not rotated until 70% of its life passed (the
        // provider's default): every request redeems the same one, as a busy server-side app does
        const grant = (base) => form(web, { grant_type: 'refresh_token', refresh_token: refreshToken }, '/oidc/token', base)
        const { through, alone } = await throughAndAlone(() => measure(grant(gateway.url), counted),
          () => measure(form(library.client, { grant_type: 'refresh_token', refresh_token: library.refreshToken }, '/oidc/token', library.url), load))
        const run = await measure(grant(iam.url), counted)
        rows.push({ id: 'oidc-refresh', database: label, label: 'OpenID refresh-token grant POST /oidc/token', run,
          checks: [atLeast(`>= ${GOALS.oidcRefresh.minRps} req/s`, run.rps, GOALS.oidcRefresh.minRps, '/s'), answeredCleanly(run)],
          notes: ['confidential client, refresh token not rotated (below 70% of its lifetime)', ...(alone ? [`${ratio(run.rps, alone.rps).toFixed(2)}x of oidc-provider alone (${Math.round(alone.rps)} req/s) at the IAM`] : [])] })
        if (through) rows.push(viaGateway('oidc-refresh-gateway', 'OpenID refresh-token grant', through, alone, GOALS.oidcViaGateway.refresh.minRatio))
      }
      if (want('oidc-introspect') && machine) {
        const { access_token: accessToken } = await tokenRequest(iam.url, machine, { grant_type: 'client_credentials' })
        // the same request to an IAM started with oidc.fastIntrospection false (the provider's
        // endpoint alone) on the same database
        const providerOnly = await startIam({ databaseUrl: db.url, redisUrl: kind === 'postgres' ? process.env.REDIS_URL : undefined, fastIntrospection: false })
        servers.push(providerOnly)
        const introspect = () => measure(form(machine, { token: accessToken }, '/oidc/token/introspection'), counted)
        const { run, baseline } = await againstSelectOne(introspect)
        const gain = await alternated(opts.rounds, introspect,
          () => measure({ ...form(machine, { token: accessToken }, '/oidc/token/introspection'), url: `${providerOnly.url}/oidc/token/introspection` }, { ...counted, iamUrl: providerOnly.url }))
        const alone = gain.baselineRun
        rows.push(againstBaseline({ id: 'oidc-introspect', database: label, label: 'OpenID introspection of an active token', run, baseline, notes: [] }, GOALS.oidcIntrospect.minRatio))
        rows.push(againstBaseline({ id: 'oidc-introspect-gain', database: label, label: 'the same, one-statement path against the provider alone', run: gain.run, baseline: { label: 'oidc.fastIntrospection false', run: alone },
          notes: [`provider alone: ${alone.statements ? `${alone.statements.total.toFixed(2)} statements per request` : 'statements not counted'}`] }, GOALS.oidcIntrospectFastGain.minRatio))
        if (library) {
          const { access_token: libraryToken } = await tokenRequest(`${library.url}`, library.client, { grant_type: 'client_credentials' })
          const { through, alone: libraryRun } = await throughAndAlone(() => measure(form(machine, { token: accessToken }, '/oidc/token/introspection', gateway.url), counted),
            () => measure(form(library.client, { token: libraryToken }, '/oidc/token/introspection', library.url), load))
          rows.push(viaGateway('oidc-introspect-gateway', 'OpenID introspection of an active token', through, libraryRun, GOALS.oidcViaGateway.introspect.minRatio))
        }
      }
    }
    if (want('oidc-client-metadata-document')) rows.push(...(await metadataDocumentRows(kind, db, label, load, servers)))
    if ((want('webhooks-login') || want('webhooks-signup') || want('webhooks-throughput')) && kind === 'postgres') rows.push(...(await webhookRows(opts, label, load, servers, want)))
    if (want('import') && kind === 'postgres') rows.push(await importRow(label))
    if (opts.seed > 0 && kind === 'postgres') {
      const seeded = await seedGrowth(db.url, opts.seed)
      report.growth = seeded
      const grown = (id, labelText, run, before) =>
        rows.push({ id: `growth-${id}`, database: `${label}, ${opts.seed.toLocaleString('en-US')} users + tokens`, label: labelText, run, baseline: { label: 'same row, small tables', run: before },
          ratio: ratio(run.rps, before.rps), checks: [atLeast(`>= ${GOALS.growth.minRatio}x of the small-table figure`, ratio(run.rps, before.rps), GOALS.growth.minRatio, 'x'), answeredCleanly(run)], notes: [] })
      if (small.login) grown('login', 'password login POST /login', await login(), small.login)
      // a user like the small-table run's (10 sessions): by now the bench user holds thousands, from the login and refresh rows
      if (small.fullAuth) grown('full-auth', 'full authentication GET /secret/data', await fullAuth(await tenSessions(await signupUser(iam, { client: device }))), small.fullAuth)
      if (small.verify) grown('verify', 'counted API token verify, one hot token', await verify(), small.verify)
    }
  } finally {
    await pg?.client.end()
    for (const server of servers.reverse()) await server.stop()
    await db.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }
  return rows
}

async function main() {
  let opts
  try {
    opts = parseBenchArgs(process.argv.slice(2), process.env)
  } catch (error) {
    console.error(error.message)
    process.exit(2)
  }
  buildServers()
  const report = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, loadAverageAtStart: loadavg(), options: opts, rows: [] }
  for (const kind of opts.databases) {
    const rows = await runDatabase(kind, opts, report)
    report.rows.push(...rows)
    console.log(`\n${formatTable(rows)}`)
  }
  report.loadAverageAtEnd = loadavg()
  console.log(`\nAll rows (load average at start ${report.loadAverageAtStart.map((n) => n.toFixed(2)).join(' ')}, at end ${report.loadAverageAtEnd.map((n) => n.toFixed(2)).join(' ')}):\n`)
  console.log(formatTable(report.rows))
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`)
  if (opts.writeResults) {
    const git = (...args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
    writeFileSync(join(ROOT, 'bench', 'RESULTS.md'), resultsPage(report.rows, {
      started: report.date,
      ended: new Date().toISOString(),
      commit: git('rev-parse', '--short', 'HEAD'),
      // the page itself is left out: the run before this one wrote it
      dirty: git('status', '--porcelain', '--', '.', ':!bench/RESULTS.md') !== '',
      args: process.argv.slice(2),
      node: process.version,
      cpus: report.cpus,
      loadAverageAtStart: report.loadAverageAtStart,
      loadAverageAtEnd: report.loadAverageAtEnd,
      durationS: opts.durationS,
      warmupS: opts.warmupS,
      connections: opts.connections,
    }))
    console.log('\nWritten to bench/RESULTS.md')
  }
}

await main()
