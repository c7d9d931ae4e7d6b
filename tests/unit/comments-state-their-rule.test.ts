/**
 * A comment states the rule it follows, or cites a file of the repository that does: the
 * specifications the code was first written from are not in the repository, so a comment pointing
 * at them ("as in the spec", "spec row 4") tells a reader nothing they can check. This test reads
 * every source file and fails on a comment that cites them that way.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const SOURCES = ['iam', 'server', 'pages', 'components', 'composables', 'shared', 'scripts', 'bench', 'tests']
/** Build output and dependencies, never sources. */
const SKIP_DIRS = new Set(['node_modules', '.output', '.output-test', '.nitro', '.nuxt', '.data'])

/**
 * Files still citing that way, each to be rewritten; the list only shrinks. A file named here that
 * no longer cites fails the test, so the list stays true.
 */
const NOT_YET_REWRITTEN = new Set<string>([])

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path)
  const stat = statSync(full)
  if (stat.isFile()) return /\.(?:ts|mts|js|mjs|cjs|vue)$/.test(path) ? [path] : []
  return readdirSync(full).filter((name) => !SKIP_DIRS.has(name)).flatMap((name) => sourceFiles(join(path, name)))
}

/** The comments of a source text: line comments, block comments, HTML comments of a template. */
function commentsOf(text: string): string[] {
  return [...text.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|<!--[\s\S]*?-->/g)].map((m) => m[0])
}

// "the spec" (also across a comment's line break), "the spec's", "spec row", "IAM spec", "(spec ...)",
// "spec: ..."; not "the specifier", "a spec object" or an RFC
const CITES_SPEC = /\bthe(?:\s|\*|\/\/)+spec\b|\bspec(?:'s)?\s+rows?\b|\bspec's\b|\bIAM\s+spec\b|\(spec\b|\bspec\s*:/i

/** The comments of `text` that cite the specifications instead of stating the rule. */
function specCitations(text: string): string[] {
  return commentsOf(text).filter((comment) => CITES_SPEC.test(comment))
}

describe('comments state their rule instead of citing a specification outside the repository', () => {
  it('flags a comment citing the spec or a spec row, and leaves code, strings and other words alone (planted samples)', () => {
    expect(specCitations(`// as the spec's refresh chain does\nconst a = 1`)).toHaveLength(1)
    expect(specCitations(`/**\n * 401 first, as in The Spec\n */`)).toHaveLength(1)
    expect(specCitations(`const a = 1 // see spec row 4`)).toHaveLength(1)
    expect(specCitations(`<!-- the spec says so -->`)).toHaveLength(1)
    expect(specCitations(`/**\n * keeps the\n * spec's reason texts\n */`)).toHaveLength(1)
    expect(specCitations(`// 401 first (IAM spec, Authentication 2)`)).toHaveLength(1)
    expect(specCitations(`// verifyApiKey (spec "Verification process")`)).toHaveLength(1)
    expect(specCitations(`// a refused revoke is 401 (spec: controller)`)).toHaveLength(1)
    expect(specCitations(`// builds a spec object for the limiter`)).toEqual([])
    expect(specCitations(`// the specifier of the import`)).toEqual([])
    expect(specCitations(`// 401 with { error } when the token is missing (docs/errors.md)`)).toEqual([])
    expect(specCitations(`const label = 'the spec'`)).toEqual([])
  })

  it('finds the sources (the test reads the right folders)', () => {
    const files = SOURCES.flatMap(sourceFiles)
    expect(files).toContain('iam/http/respond.ts')
    expect(files).toContain('server/utils/bff/respond.ts')
    expect(files).toContain('tests/unit/comments-state-their-rule.test.ts')
    expect(files.some((file) => file.endsWith('.vue'))).toBe(true)
  })

  it('no source file cites the spec in a comment, except the files not yet rewritten', () => {
    const self = relative(ROOT, import.meta.filename)
    const found = SOURCES.flatMap(sourceFiles)
      .filter((file) => file !== self && !NOT_YET_REWRITTEN.has(file))
      .flatMap((file) => specCitations(readFileSync(join(ROOT, file), 'utf8')).map((comment) => `${file}: ${comment.trim().slice(0, 120)}`))
    expect(found).toEqual([])
  })

  it('every file on the not-yet-rewritten list still cites the spec (the list only shrinks)', () => {
    for (const file of NOT_YET_REWRITTEN) expect(specCitations(readFileSync(join(ROOT, file), 'utf8')), file).not.toEqual([])
  })
})
