import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Features are plain TypeScript (docs/architecture.md): no h3, and no HTTP status as an outcome. The
 * routes' mappers in iam/http/ pick statuses from the features' failure codes.
 */
const ROOT = join(import.meta.dirname, '../..')
const FEATURES = join(ROOT, 'iam/features')

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** The code without comments, so prose about statuses ("a 401 answers ...") is not counted. */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')

const HTTP_STATUS = '[1-5]\\d\\d\\b'
const RULES: Array<{ rule: string; pattern: RegExp }> = [
  { rule: 'imports h3', pattern: /\bfrom\s+['"]h3['"]|\bimport\(\s*['"]h3['"]\s*\)|\brequire\(\s*['"]h3['"]\s*\)/ },
  // `status: 400`, `statusCode = 500`, `status: 400 | 503` (a type listing statuses)
  { rule: 'names an HTTP status', pattern: new RegExp(`\\b\\w*[sS]tatus(Code)?\\??\\s*[:=]\\s*${HTTP_STATUS}`) },
  // fail(401, ...), reply(500, ...), failWithSpend(400, ...): a helper handed a status
  { rule: 'passes an HTTP status', pattern: new RegExp(`\\b\\w*([fF]ail|[rR]eply|[rR]espond|[sS]tatus)\\w*\\(\\s*${HTTP_STATUS}`) },
]

function violations(source: string): string[] {
  const code = withoutComments(source)
  return RULES.filter(({ pattern }) => pattern.test(code)).map(({ rule }) => rule)
}

describe('feature boundaries', () => {
  it('the check finds h3 imports and statuses as outcomes, and not prose or other numbers', () => {
    expect(violations(`import { createError } from 'h3'`)).toEqual(['imports h3'])
    expect(violations(`return { ok: false, status: 403, body }`)).toEqual(['names an HTTP status'])
    expect(violations(`type R = { ok: false; status: 400 | 503 }`)).toEqual(['names an HTTP status'])
    expect(violations(`return fail(401, 'Re-login is required')`)).toEqual(['passes an HTTP status'])
    expect(violations(`return failWithSpend(400, REASONS.badRequest, key)`)).toEqual(['passes an HTTP status'])
    expect(violations(`// answers 401 when the status: 401 applies\n/* fail(400) */ const x = 1`)).toEqual([])
    expect(violations(`const ttl = 300_000; slice(200, 400); const url = 'http://x'; state: 200`)).toEqual([])
  })

  it('no file under iam/features imports h3 or returns an HTTP status', () => {
    const found = sourcesUnder(FEATURES).flatMap((path) =>
      violations(readFileSync(path, 'utf8')).map((rule) => `${relative(ROOT, path)}: ${rule}`),
    )
    expect(found).toEqual([])
  })
})

describe('storage boundary', () => {
  it('no IAM file outside iam/lib/storage imports ioredis (the limiters, nonces and anomalies reach Redis only through the store)', () => {
    const STORAGE = join(ROOT, 'iam/lib/storage')
    const importsIoredis = /\bfrom\s+['"]ioredis['"]|\bimport\(\s*['"]ioredis['"]\s*\)|\brequire\(\s*['"]ioredis['"]\s*\)/
    // the sources only: not the build outputs (.output*, .nitro*) beside them
    const iamSources = readdirSync(join(ROOT, 'iam'), { withFileTypes: true })
      .filter((entry) => !entry.name.startsWith('.'))
      .flatMap((entry) => (entry.isDirectory() ? sourcesUnder(join(ROOT, 'iam', entry.name)) : entry.name.endsWith('.ts') ? [join(ROOT, 'iam', entry.name)] : []))
    const found = iamSources
      .filter((path) => !path.startsWith(`${STORAGE}/`))
      .filter((path) => importsIoredis.test(withoutComments(readFileSync(path, 'utf8'))))
      .map((path) => relative(ROOT, path))
    expect(found).toEqual([])
    expect(importsIoredis.test(readFileSync(join(STORAGE, 'atomic-redis.ts'), 'utf8'))).toBe(true)
  })
})
