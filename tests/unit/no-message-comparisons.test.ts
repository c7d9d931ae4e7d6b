/**
 * The gateway and the pages decide what happened on an answer's `code` (iam/contract/error-codes.ts,
 * server/utils/bff/error-codes.ts), never on its English: `error`, `message` and `reason` are
 * sentences to show and log, which may be reworded or translated at any time. This test reads every
 * source file of the gateway and the Nuxt app and fails on a decision taken on such a sentence:
 * one compared with a string or a constant (`===`, `!==`, `switch`/`case`), searched
 * (`.includes`, `.startsWith`, a regular expression's `.test`), or used as a key into a table of
 * its own. A URL's query parameter named `error` carries a code (`?error=rate_limited`), not a
 * sentence, and is not judged. `typeof body.error === 'string'` asks for a type, not a text.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { messageDecisions } from '../helpers/message-decisions'

const ROOT = join(import.meta.dirname, '../..')
/** The gateway's server code and the Nuxt app: everything that reads the IAM's or the BFF's answers. */
const SOURCES = ['server', 'composables', 'components', 'pages', 'layouts', 'plugins', 'utils', 'app.vue', 'error.vue']

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path)
  let stat
  try {
    stat = statSync(full)
  } catch {
    return []
  }
  if (stat.isFile()) return /\.(?:ts|vue|mts|js|mjs)$/.test(path) ? [full] : []
  return readdirSync(full).flatMap((name) => sourceFiles(join(path, name)))
}

/**
 * The one decision on a sentence left, and why: not an answer of ours but a dependency's exception.
 * oauth4webapi names most ID token failures by `code`; a missing or malformed `id_token` it reports
 * as a generic INVALID_RESPONSE whose only distinction is its message (server/utils/oauth/exchange-code.ts).
 */
const DEPENDENCY_MESSAGES = new Set(['server/utils/oauth/exchange-code.ts'])

describe('the gateway and the pages decide on codes, never on sentences', () => {
  it('finds the gateway and the pages (the test reads the right folders)', () => {
    const files = SOURCES.flatMap(sourceFiles).map((file) => relative(ROOT, file))
    expect(files).toContain('composables/useBff.ts')
    expect(files).toContain('server/utils/bff/respond.ts')
    expect(files).toContain('components/OrgRoles.vue')
    expect(files.length).toBeGreaterThan(100)
  })

  it('flags every way of deciding on a sentence (planted samples)', () => {
    const planted = [
      `if (body.error === 'No such organization') return`,
      `if (result.body.error === NOT_ADMIN) return`,
      `return res.body?.reason !== 'AUDIENCE_NOT_ALLOWED'`,
      `if ('Validation failed' === body.error) show()`,
      `const same = body['message'] == "Link expired"`,
      `if (reason === 'REFRESH_TOKEN_REUSED') return 'copied'`,
      'if (error === `Too many requests`) wait()',
      `switch (result.body.error) {`,
      `if (body.message?.startsWith('Too many')) wait()`,
      `if (String(body.error).includes('expired')) retry()`,
      `if (/expired/i.test(body.error)) retry()`,
      `const words = TOKEN_REASONS[result.body.reason]`,
      `if ((res.body as Json).error === 'Invalid key') refuse()`,
    ]
    for (const line of planted) expect(messageDecisions(line), line).toHaveLength(1)
  })

  it('leaves codes, types, presence, query parameters and comments alone (planted samples)', () => {
    const fine = [
      `if (body.code === 'org_not_found') return`,
      `if (typeof body.message === 'string' && body.message) return body.message`,
      `if (body.error === undefined || body.reason !== null) return`,
      `const dueQuery = route.query.error === 'deletion_pending' ? due : null`,
      `const sent = ref(route.query?.error === 'sent')`,
      `error.value = body.error ?? 'The request could not be completed.'`,
      `formError.value = 'Check the form'`,
      `// the IAM answered body.error === 'No such role' before codes`,
      `/* switch (body.error) */ const x = 1`,
      `if (fields.code === 'Invalid code') clear()`,
      `const message = typeof body.message === 'string' ? body.message : 'A login link has been sent'`,
    ]
    for (const line of fine) expect(messageDecisions(line), line).toEqual([])
  })

  it('finds no decision on an error, message or reason text in server/, composables/, components/, pages/ and the rest of the app', () => {
    const found = SOURCES.flatMap(sourceFiles).flatMap((file) => messageDecisions(readFileSync(file, 'utf8')).map((hit) => `${relative(ROOT, file)}:${hit}`))
    const left = found.filter((hit) => !DEPENDENCY_MESSAGES.has(hit.split(':')[0]!))
    expect(left, `decide on \`code\` instead:\n${left.join('\n')}`).toEqual([])
    // the exemption stays as narrow as it is: one line of that file, and only while it is needed
    expect(found.filter((hit) => DEPENDENCY_MESSAGES.has(hit.split(':')[0]!))).toHaveLength(1)
  })
})
