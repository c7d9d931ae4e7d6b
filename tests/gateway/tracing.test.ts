/**
 * OpenTelemetry tracing end to end (docs/operations.md, "Tracing"): the gateway and the IAM both
 * configured with an OTLP endpoint, an in-process collector receiving what their exporters send
 * (OTLP/HTTP with JSON bodies), and one signed-in request followed from the gateway's server span
 * through its IAM call into the IAM and down to a database statement.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { GATEWAY_TEST_BUILD, IAM_TEST_BUILD } from '../helpers/build'
import { requestLine, waitForLog } from '../helpers/logs'
import { waitUntil } from '../helpers/wait'
import { browserLike, freshEmail, PASSWORD, setupStack } from './bff-harness'

type AttributeValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number }
interface OtlpSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  attributes?: { key: string; value: AttributeValue }[]
}
interface OtlpRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value: AttributeValue }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[]
}

/** A span as received, with the service that sent it and its attributes as a plain object. */
interface Received {
  service: string
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  kind: number
  attributes: Record<string, string | number | boolean | undefined>
}

// OTLP span kinds (opentelemetry-proto trace.proto, Span.SpanKind)
const SERVER = 2
const CLIENT = 3

const valueOf = (value: AttributeValue) => value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue))

/** An OTLP/HTTP collector: every span posted to /v1/traces, in arrival order. */
async function startCollector(): Promise<{ url: string; spans: Received[]; bodies: string[]; close(): Promise<void> }> {
  const spans: Received[] = []
  const bodies: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      if (req.url !== '/v1/traces' || !/json/.test(req.headers['content-type'] ?? '')) {
        res.writeHead(415).end()
        return
      }
      bodies.push(text)
      const request = JSON.parse(text) as OtlpRequest
      for (const resource of request.resourceSpans ?? []) {
        const service = String(valueOf(resource.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}))
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            const attributes = Object.fromEntries((span.attributes ?? []).map((a) => [a.key, valueOf(a.value)]))
            spans.push({ service, traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId ?? '', name: span.name, kind: span.kind, attributes })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, spans, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

const collector = await startCollector()
afterAll(() => collector.close())

// a short export delay so spans arrive within the test's polls (the default is 5 s)
const otelEnv = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '50' }
const stack = await setupStack(
  // every test signs up a fresh user from 127.0.0.1
  { rate_limiters: { signup: { points: 100, duration: 60, blockDuration: 1 } } },
  {},
  { iam: otelEnv, gateway: otelEnv },
)

async function signedInSessionRequest() {
  const b = browserLike(stack.gateway.url)
  const email = freshEmail('traced')
  const signup = await b.call('/api/auth/signup', {
    method: 'POST',
    body: { email, password: PASSWORD, confirmedPassword: PASSWORD, name: 'Traced User', termsConsent: 'on' },
  })
  expect(signup.status, signup.text).toBe(201)
  const session = await b.call('/api/auth/session')
  expect(session.status, session.text).toBe(200)
  expect(session.json).toMatchObject({ authenticated: true })
  return { b, email, session }
}

/** The spans of `traceId` once `holds` is true of them. */
async function traceWhere(traceId: () => string | undefined, holds: (spans: Received[]) => boolean, what: string): Promise<Received[]> {
  const spansOf = () => collector.spans.filter((span) => span.traceId === traceId())
  await waitUntil(() => traceId() !== undefined && holds(spansOf()), what)
  return spansOf()
}

const gatewaySessionSpan = (span: Received) => span.service === 'identity-platform-gateway' && span.kind === SERVER && span.attributes['http.route'] === '/api/auth/session'

/** The spans of one request, gateway to database, as far as they arrived (each undefined until it did). */
function chainOf(spans: Received[], server: Received) {
  const hop = spans.find((s) => s.service === 'identity-platform-gateway' && s.kind === CLIENT && s.parentSpanId === server.spanId)
  const iamServer = hop && spans.find((s) => s.service === 'identity-platform-iam' && s.kind === SERVER && s.parentSpanId === hop.spanId)
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  const underIamServer = (span: Received): boolean => {
    for (let at: Received | undefined = span; at; at = byId.get(at.parentSpanId)) if (at === iamServer) return true
    return false
  }
  const statement = iamServer && spans.find((s) => s.attributes['db.system.name'] === 'postgresql' && underIamServer(s))
  return { hop, iamServer, statement }
}

describe('one signed-in request traced across both apps', () => {
  it('chains the gateway server span, its IAM call, the IAM server span and a database statement', async () => {
    const before = collector.spans.length
    const { session } = await signedInSessionRequest()
    const root = () => collector.spans.slice(before).find(gatewaySessionSpan)
    const spans = await traceWhere(() => root()?.traceId, (all) => chainOf(all, root()!).statement !== undefined, 'the whole chain of the traced session request')
    const server = root()!
    expect(server.parentSpanId).toBe('')
    expect(server.name).toBe('GET /api/auth/session')
    expect(server.attributes['http.request.method']).toBe('GET')
    expect(server.attributes['http.response.status_code']).toBe(200)

    const { hop, iamServer, statement } = chainOf(spans, server)
    expect(hop!.attributes['http.response.status_code']).toBe(200)
    // the IAM continued the trace from the traceparent of a signed request: the signature still verified (200)
    expect(iamServer!.attributes['http.response.status_code']).toBe(200)
    expect(String(iamServer!.attributes['http.route'])).toMatch(/^\//)
    expect(statement!.kind).toBe(CLIENT)
    expect(statement!.attributes['db.operation.name']).toMatch(/^[A-Z]+$/)

    // the HMAC nonce is recorded in the shared store: a store span under the IAM server span
    expect(spans.some((s) => s.name === 'store setIfAbsent' && s.parentSpanId === iamServer!.spanId)).toBe(true)

    // both request log lines name the trace and their own server span
    const gatewayLine = JSON.parse(await requestLine(stack.gateway, session.headers.get('x-request-id')!)) as Record<string, unknown>
    expect(gatewayLine).toMatchObject({ trace_id: server.traceId, span_id: server.spanId })
    const iamLine = await waitForLog(stack.iam, (line) => line.includes('"msg":"request"') && line.includes(`"trace_id":"${server.traceId}"`))
    expect(JSON.parse(iamLine)).toMatchObject({ trace_id: server.traceId, span_id: iamServer!.spanId })
  })

  it('traces the sign-up password hash and its mail inside the sign-up request of the IAM', async () => {
    const before = collector.spans.length
    await signedInSessionRequest()
    const iamSignup = () => collector.spans.slice(before).find((s) => s.service === 'identity-platform-iam' && s.kind === SERVER && s.attributes['http.route'] === '/signup')
    const inSignup = (name: string) => collector.spans.slice(before).find((s) => s.name === name && s.traceId === iamSignup()?.traceId)
    await waitUntil(() => inSignup('argon2 hash') !== undefined && inSignup('mail send') !== undefined, 'the hash and mail spans of the sign-up')
    expect(inSignup('argon2 hash')!.parentSpanId).toBe(iamSignup()!.spanId)
    expect(inSignup('mail send')!.attributes['iam.mail.transport']).toBe('outbox')
  })

  it('records no address, cookie, raw path or statement values in any span', async () => {
    const before = collector.bodies.length
    const { b, email } = await signedInSessionRequest()
    const root = () => collector.spans.find(gatewaySessionSpan)
    await waitUntil(() => collector.bodies.length > before && root() !== undefined, 'exported spans')
    const exported = collector.bodies.slice(before).join('\n')
    expect(exported).not.toContain(email)
    // the credential cookies (access and refresh token, device id); a-iat is a time, which a span's timestamps may share
    const credentials = ['__Secure-a', 'session', 'canary_id'].map((name) => b.jar.get(name))
    expect(credentials.every((value) => value && value.length >= 20)).toBe(true)
    for (const value of credentials) expect(exported).not.toContain(value)
    expect(exported).not.toContain(PASSWORD)
    expect(exported).not.toMatch(/"url\.(path|full|query)"|"db\.query\.text"|"db\.statement"/)
  })

  it('starts a new trace at the gateway instead of continuing a browser traceparent', async () => {
    const foreignTrace = 'aa'.repeat(16)
    const b = browserLike(stack.gateway.url)
    const before = collector.spans.length
    const res = await b.call('/api/auth/session', { headers: { traceparent: `00-${foreignTrace}-${'bb'.repeat(8)}-01` } })
    expect(res.status).toBe(200)
    const root = () => collector.spans.slice(before).find(gatewaySessionSpan)
    await waitUntil(() => root() !== undefined, 'the gateway server span')
    expect(root()!.traceId).not.toBe(foreignTrace)
    expect(root()!.parentSpanId).toBe('')
    expect(collector.spans.some((s) => s.traceId === foreignTrace)).toBe(false)
  })
})

describe('tracing off costs no SDK', () => {
  // the builds this file's servers run: a static import would load the SDK at every start, traced or not
  const STATIC_SDK_IMPORT = /^import\b[^(;]*['"]@opentelemetry\/(?:sdk-trace|exporter-trace-otlp-http|context-async-hooks|core|resources)['"]/m
  const DYNAMIC_SDK_IMPORT = /\bimport\(\s*['"]@opentelemetry\/sdk-trace['"]\s*\)/
  /** The text of each of our own server modules in a build (its node_modules are the packages). */
  const modulesOf = (build: { output: string }): string[] =>
    readdirSync(join(build.output, 'server'), { withFileTypes: true, recursive: true })
      .map((entry) => ({ entry, path: join(entry.parentPath, entry.name) }))
      .filter(({ entry, path }) => entry.isFile() && entry.name.endsWith('.mjs') && !path.includes('node_modules'))
      .map(({ path }) => readFileSync(path, 'utf8'))

  it.each([
    ['IAM', IAM_TEST_BUILD],
    ['gateway', GATEWAY_TEST_BUILD],
  ])('the %s bundle imports the SDK, the exporter and the context manager only dynamically', (_name, build) => {
    const modules = modulesOf(build)
    expect(modules.filter((text) => STATIC_SDK_IMPORT.test(text))).toEqual([])
    // and it does import them: the pattern above matches the bundler's spelling
    expect(modules.some((text) => DYNAMIC_SDK_IMPORT.test(text))).toBe(true)
  })
})
