/**
 * Test build only: every JSON failure the IAM answers carries a `code` its route table entry
 * declares for that status (contract/responses.ts codeProblem). An answer that does not is replaced,
 * before it leaves, by a 500 naming the route, the status and the code, and logged at error level:
 * whichever test made the request fails on it, so a code added to a route without its declaration
 * (or a failure added without a code) cannot pass the suite.
 *
 * The body is read where it is written (`res.end`), so every path is seen alike: httpFail through
 * the final handler, the bodies routes return with a status they set, and the middleware's answers.
 * The OpenID Provider's own answers (under the /oidc mount, outside the table) keep RFC 6749's
 * `error` and have no `code`.
 */
import type { ServerResponse } from 'node:http'
import type { H3Event } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import { isOidcPath } from '../../contract/oidc-mount'
import { codeProblem } from '../../contract/responses'
import { ROUTES } from '../../contract/routes'
import { useIam } from '../../context'

/** Statuses whose body is judged: failures, and the 202 of a pending MFA. */
const judged = (status: number) => status >= 400 || status === 202

function bodyText(chunk: unknown): string | undefined {
  if (typeof chunk === 'string') return chunk
  if (Buffer.isBuffer(chunk)) return chunk.toString('utf8')
  return undefined
}

/**
 * On in every test build not run in production, routes or not (IAM_TEST_ROUTES): the IAMs a test
 * starts without its test routes answer under the same contract. Read from the env object at run
 * time: the bundler replaces a literal `process.env.NODE_ENV` (iam/test-build/enabled.ts).
 */
const guarding = (env: Record<string, string | undefined>) => env['NODE_ENV'] !== 'production'

// Around the h3 app's handler, not on Nitro's 'request' hook: requests on the IAM's direct lane
// (iam/plugins/02.direct-lane.ts) skip that hook, and the test build's plugins run after the IAM's
// own, so this wraps the lane too.
export default defineNitroPlugin(({ h3App }) => {
  if (!guarding(process.env)) return
  const handle = h3App.handler
  h3App.handler = (event) => {
    guard(event)
    return handle(event)
  }
})

/** Replaces, as it is written, a failure whose code the route's table entry does not declare. */
function guard(event: H3Event): void {
  const res: ServerResponse = event.node.res
  // as received: the /oidc mount hands the provider the path without its prefix (routes/oidc)
  const path = event.path.split('?')[0] ?? '/'
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse
  res.end = ((...args: unknown[]) => {
    const chunk = typeof args[0] === 'function' ? undefined : args[0]
    const text = bodyText(chunk)
    const json = /^application\/json\b/i.test(String(res.getHeader('content-type') ?? ''))
    if (text === undefined || !json || res.headersSent || !judged(res.statusCode)) return end(...args)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return end(...args)
    }
    const id = event.context.routeRule?.id
    const route = id ? ROUTES[id] : undefined
    if (!route && isOidcPath(path) && (body as { code?: unknown } | null)?.code === undefined) return end(...args)
    const problem = codeProblem(route, res.statusCode, body)
    if (!problem) return end(...args)
    const where = `${event.method} ${path}`
    useIam().log.error('undeclared failure code', { route: id ?? 'none', where, problem, body: text.slice(0, 500) })
    const replaced = JSON.stringify({ error: 'Undeclared failure code (test build)', code: 'internal_error', undeclared: { route: id ?? null, where, problem, body } })
    res.statusCode = 500
    if (res.hasHeader('content-length')) res.setHeader('content-length', Buffer.byteLength(replaced))
    return end(replaced)
  }) as typeof res.end
}
