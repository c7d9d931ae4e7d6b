/**
 * Process CPU (user + system of every thread: WebCrypto's jobs run on the libuv pool) per access
 * token verification, in process, without HTTP or a database: what full authentication's verify
 * step costs with the instance's verified-token cache and without it (every verification a full
 * EdDSA check through jose). Ten sessions' tokens, `--concurrency` verifications in flight, in
 * rounds alternating the two ways, so a loaded machine moves both alike; then signing, per token.
 *
 *   node bench/access-token-verify.mjs [--count 20000] [--rounds 3] [--concurrency 50]
 *     [--module iam/features/tokens/access-token.ts]
 *
 * --module (repeatable): another access-token.ts exporting the same verifyAccessToken (an older
 * revision, copied elsewhere), measured beside the current one and called without a cache.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createJiti } from 'jiti'

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '50' },
    module: { type: 'string', multiple: true, default: [] },
  },
  strict: true,
})

const jiti = createJiti(import.meta.url)
const tokens = await jiti.import('../iam/features/tokens/access-token.ts')
const keys = await jiti.import('../iam/features/tokens/signing-keys.ts')
const { createVerifiedTokens } = await jiti.import('../iam/features/tokens/verified-tokens.ts')
const others = await Promise.all(values.module.map(async (path) => [path, await jiti.import(resolve(path))]))

const NOW = Date.now()
const settings = { issuer: 'https://iam.bench', audience: 'https://app.bench', expiresInMs: 15 * 60_000 }
const ring = await keys.buildKeyRing([{ ...(await keys.generateSigningJwk()), retiredAt: null }], settings.expiresInMs, NOW)
const claims = (i) => ({ subject: '0b6c1d9e-3f43-4a57-9d0e-7c0a4c1f5e21', sessionId: `family-${i}`, visitor: `visitor-${i}`, roles: ['user'] })
const sessionTokens = await Promise.all(Array.from({ length: 10 }, async (_, i) => (await tokens.signAccessToken(ring, settings, claims(i), NOW)).token))

/** CPU microseconds per verification of `count` verifications, `concurrency` at a time. */
async function measure(verify, count, concurrency) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const result = await verify(sessionTokens[next++ % sessionTokens.length])
      if (!result.ok) throw new Error(`verification failed: ${result.code}`)
    }
  }
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / count
}

const verified = createVerifiedTokens()
const ways = {
  'jose, cached': (token) => tokens.verifyAccessToken(ring, settings, token, NOW, verified),
  'jose, no cache': (token) => tokens.verifyAccessToken(ring, settings, token, NOW),
  ...Object.fromEntries(others.map(([path, other]) => [path, (token) => other.verifyAccessToken(ring, settings, token, NOW)])),
}
const count = Number(values.count)
const concurrency = Number(values.concurrency)
const figures = Object.fromEntries(Object.keys(ways).map((name) => [name, []]))
for (const verify of Object.values(ways)) await measure(verify, Math.min(count, 2000), concurrency)
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, verify] of Object.entries(ways)) figures[name].push(await measure(verify, count, concurrency))
}
// signing, for the same modules: every sign-in and every refresh signs one token
const signers = {
  jose: (i) => tokens.signAccessToken(ring, settings, claims(i), NOW),
  ...Object.fromEntries(others.map(([path, other]) => [path, (i) => other.signAccessToken(ring, settings, claims(i), NOW)])),
}
const signing = Object.fromEntries(Object.keys(signers).map((name) => [name, []]))
/** CPU microseconds per signature of `count` signatures, `concurrency` at a time. */
async function measureSigning(sign, count) {
  let next = 0
  const worker = async () => {
    while (next < count) await sign(next++)
  }
  const before = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / count
}
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, sign] of Object.entries(signers)) signing[name].push(await measureSigning(sign, Math.ceil(count / 4)))
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]
const line = (list) => `${list.map((us) => `${us.toFixed(1)} us`).join(', ')}; median ${median(list).toFixed(1)} us`
for (const [name, list] of Object.entries(figures)) console.log(`verify ${name}: ${line(list)} CPU per verification`)
for (const [name, list] of Object.entries(signing)) console.log(`sign ${name}: ${line(list)} CPU per token`)
