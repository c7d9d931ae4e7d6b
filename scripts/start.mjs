// npm start: builds the IAM and the gateway when their output is missing or older than their sources,
// then runs the IAM (127.0.0.1:3001), the gateway (127.0.0.1:3000, opened as http://localhost:3000)
// and, when present, the demo OIDC provider, on the embedded defaults. Before the IAM starts it registers
// the "Demo app" OpenID client (ensureDemoClient) that examples/second-app signs in with. Zero config: unless IAM_CONFIG / GATEWAY_CONFIG are given, it
// writes .data/iam.config.json and .data/gateway.config.json that wire the gateway to the IAM with
// HMAC (a shared secret generated once and kept in .data/start-secrets.json).
// Ctrl-C / SIGTERM stops every child; if one child dies the others are stopped and its exit code is ours.
// scripts/dev.mjs reuses the config and process handling exported here.
import { execFile, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { checkPort } from 'get-port-please'
import { buildIfStale, entryOf, GATEWAY_APP, IAM_APP } from './lib/build.ts'
import { eachLine, stopChild } from './lib/run-server.ts'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
/** Where every process listens: loopback only. */
export const HOST = '127.0.0.1'
/**
 * The one host name of the gateway: printed, and used by mail links, OAuth redirects and the passkey
 * relying party. Not the IP: WebAuthn refuses an IP address as relying party id, and cookies belong
 * to a host, so a mail link to 127.0.0.1 opened by someone signed in on localhost finds no session.
 * Browsers resolve localhost to loopback themselves (RFC 6761 section 6.3; Chromium tries ::1 and
 * 127.0.0.1 in turn), so it reaches the servers on HOST; checkLocalhost() warns when this system's
 * resolver does not.
 */
export const PUBLIC_HOST = 'localhost'
export const PORTS = {
  iam: Number(process.env.IAM_PORT || 3001),
  gateway: Number(process.env.GATEWAY_PORT || 3000),
  demo: Number(process.env.DEMO_OIDC_PORT || 3002),
}

/** The addresses `npm start` prints and configures: the gateway by PUBLIC_HOST, the back-end servers by HOST. */
export function startUrls(ports = PORTS) {
  return { gateway: `http://${PUBLIC_HOST}:${ports.gateway}`, iam: `http://${HOST}:${ports.iam}`, demo: `http://${HOST}:${ports.demo}` }
}
const DATA_DIR = join(ROOT, '.data')
const rel = (path) => (isAbsolute(path) && path.startsWith(ROOT) ? path.slice(ROOT.length + 1) : path)

// ---- builds (scripts/lib/build.ts: the rule the tests and the benchmark use too) --------------------
const BUILDS = [
  { app: IAM_APP, output: process.env.IAM_OUTPUT_DIR || 'iam/.output' },
  { app: GATEWAY_APP, output: process.env.GATEWAY_OUTPUT_DIR || '.output' },
]
export { entryOf }

// ---- zero-config wiring ----------------------------------------------------------------------------
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'))

function writePrivate(path, value) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 })
  chmodSync(path, 0o600)
}

/** Kept across starts so sessions and flow cookies survive a restart. `dev_`: production refuses them. */
function startSecrets() {
  const path = join(DATA_DIR, 'start-secrets.json')
  const kept = existsSync(path) ? readJson(path) : {}
  // 32 bytes from the CSPRNG: 256 bits, the HMAC-SHA256 key strength.
  const generate = () => `dev_${randomBytes(32).toString('base64url')}`
  const secrets = { hmacSharedSecret: kept.hmacSharedSecret ?? generate(), cookieSecret: kept.cookieSecret ?? generate() }
  if (secrets.hmacSharedSecret !== kept.hmacSharedSecret || secrets.cookieSecret !== kept.cookieSecret) writePrivate(path, secrets)
  return secrets
}

// The demo OpenID provider (scripts/demo-oidc-provider.mjs) runs beside the apps in development: its
// gateway entry comes from the script itself, so the client registration cannot drift. It refuses
// NODE_ENV=production, and so do we.
export const DEMO_SCRIPT = join(ROOT, 'scripts', 'demo-oidc-provider.mjs')
export async function demoProvider() {
  if (!existsSync(DEMO_SCRIPT) || process.env.NODE_ENV === 'production') return undefined
  const { demoProviderEntry } = await import(pathToFileURL(DEMO_SCRIPT).href)
  const urls = startUrls()
  // the provider sends the browser back to the gateway's one host, where the flow cookies were set
  const entry = demoProviderEntry({ issuer: urls.demo, gatewayUrl: urls.gateway })
  const env = childEnv({ DEMO_OIDC_PORT: String(PORTS.demo), DEMO_GATEWAY_URL: urls.gateway })
  return { name: entry.name, issuer: entry.issuer, entry, child: { name: 'demo', args: [DEMO_SCRIPT], env } }
}

/**
 * The config files the IAM and the gateway run with: the user's (IAM_CONFIG / GATEWAY_CONFIG), or
 * generated ones under .data/. When only one side is given, the generated other side takes its HMAC
 * settings from it, so the pair always agrees.
 */
export function prepareConfig(demo) {
  const userIam = process.env.IAM_CONFIG && resolve(process.env.IAM_CONFIG)
  const userGateway = process.env.GATEWAY_CONFIG && resolve(process.env.GATEWAY_CONFIG)
  if (userIam && userGateway) return { iamConfig: userIam, gatewayConfig: userGateway }
  const secrets = startSecrets()
  let hmac = { clientId: 'gateway', sharedSecret: secrets.hmacSharedSecret }
  if (userIam) hmac = pickHmac(readJson(userIam)?.service?.Hmac)
  if (userGateway) hmac = pickHmac(readJson(userGateway)?.iam?.hmac)
  const { iam: iamUrl, gateway: gatewayUrl } = startUrls()
  const iamConfig = userIam ?? join(DATA_DIR, 'iam.config.json')
  const gatewayConfig = userGateway ?? join(DATA_DIR, 'gateway.config.json')
  const generated = devConfigs({ iamUrl, gatewayUrl, gatewayIp: HOST, hmac, cookieSecret: secrets.cookieSecret, demo })
  if (!userIam) writePrivate(iamConfig, generated.iam)
  if (!userGateway) writePrivate(gatewayConfig, generated.gateway)
  return { iamConfig, gatewayConfig }
}

/**
 * The generated config objects (pure). Every address a browser is sent to (mail links, the passkey
 * origin and relying party, the token audience) is the gateway's one public origin, with a loopback
 * IP written as localhost. The IAM trusts exactly the gateway's address as its proxy:
 * every request reaches it from the gateway, so without this every user would be the gateway's
 * 127.0.0.1 to the IAM's rate limits, IP checks and token allow-lists. The gateway trusts no proxy
 * (nothing stands in front of it here), and the IAM takes only the HMAC signature version that
 * covers the body and the credential headers (the gateway always sends it).
 */
export function devConfigs({ iamUrl, gatewayUrl, gatewayIp, hmac, cookieSecret, demo }) {
  const publicOrigin = localhostOrigin(gatewayUrl)
  return {
    iam: {
      service: {
        publicUrl: iamUrl,
        proxy: { trust: true, ipToTrust: gatewayIp },
        ...(hmac ? { Hmac: { ...hmac, requireBodyDigest: true } } : {}),
      },
      // the example orders API (examples/api) also takes the tokens the gateway's proxy sends it
      jwt: { access_tokens: { issuer: iamUrl, audience: publicOrigin }, api_access_tokens: { audiences: [EXAMPLE_API.indicator] } },
      magic_links: { domain: publicOrigin },
      // The MX check is off: a first start on a laptop without working DNS (offline, or a resolver
      // answering NXDOMAIN for every name) would refuse every signup with "The email domain cannot
      // receive mail". Production keeps the schema default (on).
      emailChecks: { mx: false },
      // the gateway's pages solve the proof of work; the IAM's default leaves it off for API clients
      botChallenge: { enabled: true },
      // the OpenID Provider's issuer: the printed gateway origin + /oidc, which the gateway forwards;
      // examples/api and examples/mcp-server (their default addresses) as APIs clients may ask tokens for
      oidc: { issuer: `${publicOrigin}/oidc`, resourceServers: [EXAMPLE_API, EXAMPLE_MCP_SERVER] },
      providers: demo ? [{ name: demo.name, useStandardProfile: true }] : [],
      // WebAuthn refuses an IP address as relying party id; http://localhost is a secure context
      passkeys: { rpID: new URL(publicOrigin).hostname, origins: [publicOrigin] },
    },
    gateway: {
      iam: { url: iamUrl, ...(hmac ? { hmac } : {}) },
      cookieSecret,
      OAuthProviders: demo ? [demo.entry] : [],
      // /api/upstream/orders/** -> examples/api on its default address (the example Nuxt app's dashboard calls it)
      apis: [{ name: 'orders', upstream: EXAMPLE_API_UPSTREAM, audience: EXAMPLE_API.indicator }],
    },
  }
}

/** The gateway's origin with a loopback IP written as `localhost` (PUBLIC_HOST). */
export const localhostOrigin = (url) => {
  const u = new URL(url)
  if (u.hostname === '127.0.0.1' || u.hostname === '[::1]') u.hostname = PUBLIC_HOST
  return u.origin
}

const pickHmac = (h) => (h?.clientId && h?.sharedSecret ? { clientId: h.clientId, sharedSecret: h.sharedSecret } : undefined)

// ---- the demo OpenID client ---------------------------------------------------------------------------
/** What a second local app (examples/second-app) signs in with, through the IAM's OpenID Provider. */
/** examples/api on its default port: the resource server `npm start` configures for trying it. */
export const EXAMPLE_API = { indicator: 'http://localhost:4100/', scopes: ['orders:read', 'orders:write'] }
/** where examples/api listens by default (127.0.0.1:4100): the gateway's proxy calls it there */
const EXAMPLE_API_UPSTREAM = 'http://127.0.0.1:4100'
/** examples/mcp-server on its default address: the MCP server agents can sign in to after `npm start`. */
export const EXAMPLE_MCP_SERVER = { indicator: 'http://localhost:4200/mcp', scopes: ['notes:read'] }

export const DEMO_CLIENT = { name: 'Demo app', redirectUri: 'http://localhost:4000/callback', postLogoutRedirectUri: 'http://localhost:4000/' }

/** The built admin CLI beside a built IAM entry (server/index.mjs -> server/cli.mjs). */
export const cliEntryOf = (output) => join(dirname(entryOf(output)), 'cli.mjs')

/** One admin CLI command with `--json`: its document, or an error carrying its one-line failure. */
function runCliJson(cliEntry, args, env) {
  return new Promise((resolvePromise, reject) => {
    execFile(process.execPath, [cliEntry, ...args, '--json'], { cwd: ROOT, env, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(stderr.trim() || error.message))
      resolvePromise(JSON.parse(stdout))
    })
  })
}

/**
 * Registers the "Demo app" client once (first-party, confidential, code + PKCE, redirect
 * DEMO_CLIENT.redirectUri) and answers its id and secret on every start. A secret is shown only when
 * it is made, so it is kept in <dataDir>/iam/demo-client.json (mode 600) beside the other generated
 * dev secrets; when that file is gone or names another client, the client's secret is rotated and
 * kept again. The file also names the issuer and the redirect URI, so examples/second-app signs in
 * with this start's gateway, on whatever port it was given, without settings.
 *
 * This runs the admin CLI before the IAM starts rather than registering from inside the IAM: the
 * CLI is how operators register clients, so nothing demo-only enters the server, and on the embedded
 * PGlite database only one process may hold the data dir, which the CLI has to itself before the IAM
 * takes it. `env` is the IAM's (IAM_CONFIG ...), so the CLI opens the same database and dev secrets.
 */
export async function ensureDemoClient({ cliEntry, env, dataDir, issuer }) {
  const file = join(dataDir, 'iam', 'demo-client.json')
  const kept = existsSync(file) ? readJson(file) : {}
  const { clients } = await runCliJson(cliEntry, ['clients:list'], env)
  const existing = clients.find((c) => c.name === DEMO_CLIENT.name)
  const where = { issuer, redirectUri: DEMO_CLIENT.redirectUri }
  if (existing && kept.clientId === existing.clientId && kept.clientSecret) {
    if (kept.issuer !== issuer || kept.redirectUri !== DEMO_CLIENT.redirectUri) writePrivate(file, { ...kept, ...where })
    return { clientId: kept.clientId, clientSecret: kept.clientSecret, file }
  }
  const answer = existing
    ? await runCliJson(cliEntry, ['clients:rotate-secret', existing.clientId], env)
    : await runCliJson(
        cliEntry,
        ['clients:create', '--name', DEMO_CLIENT.name, '--first-party', '--redirect-uri', DEMO_CLIENT.redirectUri, '--post-logout-redirect-uri', DEMO_CLIENT.postLogoutRedirectUri],
        env,
      )
  const demoClient = { clientId: existing?.clientId ?? answer.client.clientId, clientSecret: answer.clientSecret }
  writePrivate(file, { ...demoClient, ...where })
  return { ...demoClient, file }
}

/** The IAM's data dir and issuer as the config file gives them (the IAM runs from ROOT). */
export function iamSettings(iamConfig, urls = startUrls()) {
  const raw = existsSync(iamConfig) ? readJson(iamConfig) : {}
  return { dataDir: resolve(ROOT, raw?.service?.dataDir ?? '.data'), issuer: raw?.oidc?.issuer ?? `${localhostOrigin(urls.gateway)}/oidc` }
}

// ---- processes -------------------------------------------------------------------------------------
/** Fails clearly, before anything starts, when a port is taken. */
export async function assertPortsFree(ports) {
  for (const [name, port] of ports) {
    if ((await checkPort(port, HOST)) === false) {
      console.error(`Port ${port} on ${HOST} is in use: cannot start the ${name}. Stop what uses it or set ${name.toUpperCase()}_PORT.`)
      process.exit(1)
    }
  }
}

/**
 * Warns when this system's resolver does not give HOST for PUBLIC_HOST (an /etc/hosts without
 * `127.0.0.1 localhost`): browsers still get there, command-line clients such as curl may not.
 */
export async function checkLocalhost() {
  const addresses = (await lookup(PUBLIC_HOST, { all: true }).catch(() => [])).map((a) => a.address)
  if (addresses.includes(HOST)) return
  console.warn(
    `This system resolves ${PUBLIC_HOST} to ${addresses.join(', ') || 'nothing'}, not ${HOST}, where npm start listens. ` +
      `Browsers still reach http://${PUBLIC_HOST}:${PORTS.gateway}; for other clients add "${HOST} ${PUBLIC_HOST}" to /etc/hosts.`,
  )
}

const COLORS = { iam: 36, gateway: 35, demo: 33 }
function pipeWithPrefix(stream, name, out) {
  const tag = process.stdout.isTTY ? `\x1b[${COLORS[name] ?? 32}m[${name}]\x1b[0m ` : `[${name}] `
  eachLine(stream, (line) => out.write(`${tag}${line}\n`))
}

/** Runs the children; Ctrl-C / SIGTERM stop all; one exiting stops the rest and sets the exit code. */
export function runAll(children) {
  const live = new Set()
  let stopping = false
  let exitCode = 0
  const stopAll = (code) => {
    if (stopping) return
    stopping = true
    exitCode = code
    // Graceful shutdown finishes in-flight requests; do not wait forever on a stuck child.
    for (const child of live) void stopChild(child, 10_000)
    if (live.size === 0) process.exit(exitCode)
  }
  for (const { name, args, env } of children) {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    live.add(child)
    pipeWithPrefix(child.stdout, name, process.stdout)
    pipeWithPrefix(child.stderr, name, process.stderr)
    const onEnd = (code, signal) => {
      if (!live.delete(child)) return
      if (!stopping) {
        console.error(`[${name}] exited (${signal ?? `code ${code}`}): stopping the others`)
        stopAll(code ?? 1)
      } else if (live.size === 0) process.exit(exitCode)
    }
    child.once('exit', onEnd)
    child.once('error', (error) => {
      console.error(`[${name}] ${error.message}`)
      onEnd(1, null)
    })
  }
  process.once('SIGINT', () => stopAll(0))
  process.once('SIGTERM', () => stopAll(0))
}

/** Waits until the gateway reports the IAM healthy through HMAC, then prints where everything is. */
export async function announceWhenReady(lines, timeoutMs = 120_000, later = () => []) {
  const deadline = Date.now() + timeoutMs
  const pause = () => new Promise((r) => setTimeout(r, 500))
  // The IAM first (loopback /health needs no signature): asking the gateway earlier only logs warnings.
  while (Date.now() < deadline && (await fetch(`http://${HOST}:${PORTS.iam}/health`).catch(() => undefined))?.status !== 200) await pause()
  while (Date.now() < deadline) {
    const res = await fetch(`http://${HOST}:${PORTS.gateway}/api/health`).catch(() => undefined)
    if (res?.status === 200) return console.log(['', ...lines, ...later(), ''].join('\n'))
    await pause()
  }
  console.error(`The gateway does not report the IAM healthy (GET http://${HOST}:${PORTS.gateway}/api/health): check the HMAC settings of both configs and the logs above.`)
}

export function banner({ iamConfig, gatewayConfig }, demo, urls = startUrls(), openid = undefined) {
  return [
    `  Gateway (open this)  ${urls.gateway}`,
    `  IAM                  ${urls.iam}`,
    ...(demo ? [`  Demo OIDC provider   ${demo.issuer} (sign in there with any login id)`] : []),
    ...(openid
      ? [
          `  OpenID discovery     ${openid.issuer}/.well-known/openid-configuration`,
          ...(openid.client
            ? [
                `  Demo app client id   ${openid.client.clientId}`,
                `  Demo app secret      ${openid.client.clientSecret} (kept in ${rel(openid.client.file)})`,
                `  Demo app redirect    ${DEMO_CLIENT.redirectUri}`,
                `  Demo app             node examples/second-app/server.mjs (then open ${new URL(DEMO_CLIENT.redirectUri).origin})`,
              ]
            : []),
        ]
      : []),
    `  Example API          node examples/api/server.mjs (the orders API at ${EXAMPLE_API.indicator}: /api/upstream/orders/** of the gateway)`,
    `  Mail outbox          .data/mail/ (MFA links and codes, when no SMTP is configured)`,
    `  Config               ${rel(iamConfig)}, ${rel(gatewayConfig)}`,
    '  Ctrl-C stops everything.',
  ]
}

/**
 * While no account is an administrator, the IAM writes a one-time code to this file at each start
 * (iam/features/admin/bootstrap.ts); read once the IAM is up, so the banner says how to use it.
 */
export function bootstrapLines(dataDir, urls = startUrls()) {
  const file = join(dataDir, 'iam', 'admin-bootstrap-code')
  if (!existsSync(file)) return []
  return [`  First administrator  sign in, open ${localhostOrigin(urls.gateway)}/admin/bootstrap and enter the code in ${rel(file)}`]
}

/** Child env: our PORT/HOST win over NITRO_* from the user's shell. */
export function childEnv(extra) {
  const { NITRO_PORT: _p, NITRO_HOST: _h, ...env } = process.env
  return { ...env, HOST, ...extra }
}

async function main() {
  const demo = await demoProvider()
  await assertPortsFree([['iam', PORTS.iam], ['gateway', PORTS.gateway], ...(demo ? [['demo', PORTS.demo]] : [])])
  try {
    for (const { app, output } of BUILDS) buildIfStale(app, output)
  } catch (error) {
    console.error(error.message)
    process.exit(1)
  }
  await checkLocalhost()
  const config = prepareConfig(demo)
  const iamEnv = childEnv({ PORT: String(PORTS.iam), IAM_CONFIG: config.iamConfig })
  const { dataDir, issuer } = iamSettings(config.iamConfig)
  let client
  if (process.env.NODE_ENV !== 'production') {
    client = await ensureDemoClient({ cliEntry: cliEntryOf(BUILDS[0].output), env: iamEnv, dataDir, issuer }).catch((error) => {
      console.warn(`The demo OpenID client could not be registered (${error.message}); the rest starts without it.`)
      return undefined
    })
  }
  runAll([
    ...(demo ? [demo.child] : []),
    { name: 'iam', args: [entryOf(BUILDS[0].output)], env: iamEnv },
    { name: 'gateway', args: [entryOf(BUILDS[1].output)], env: childEnv({ PORT: String(PORTS.gateway), GATEWAY_CONFIG: config.gatewayConfig }) },
  ])
  await announceWhenReady(banner(config, demo, startUrls(), { issuer, client }), undefined, () => bootstrapLines(dataDir))
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main()
