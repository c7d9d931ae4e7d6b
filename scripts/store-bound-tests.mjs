#!/usr/bin/env node
/**
 * Prints the test files whose outcome can depend on DATABASE_URL or REDIS_URL: those that read
 * one of them, or import (through relative imports, at any depth) a file that does. CI's second
 * run, against PostgreSQL + Redis, runs only these: a pure test gives the same answer on both
 * runs, so running it twice only costs minutes.
 *
 *   node scripts/store-bound-tests.mjs tests/unit tests/gateway tests/iam   # one path per line
 *
 * A test file or helper is store-bound when its text names either variable, an application source
 * when it reads one from the environment; the walk follows `import ... from`,
 * `export ... from`, `import('...')` and `new URL('...', import.meta.url)` with relative targets,
 * so a helper that starts an IAM (tests/helpers/iam-server.ts) marks every test that uses it.
 *
 * A test file that starts an IAM only to reach what it is about (a page's BFF route, a signature's
 * purpose, a lock on a PGlite directory) may say so in a line of its own,
 *
 *   // store-independent: <why its outcome is the same on PGlite + memory and PostgreSQL + Redis>
 *
 * and is then left out, whatever it imports: what it calls in the IAM is a subject of files that do
 * run on both. The reason is required, and a file that names DATABASE_URL or REDIS_URL itself
 * cannot say it (both stop the script with status 2).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..')
const NAMES = /\b(DATABASE_URL|REDIS_URL)\b/
// outside tests/ only code that reads the variable counts (iam/lib/config.ts's `env.DATABASE_URL`):
// the sources name them in comments and messages too (a PGlite lock's advice to use DATABASE_URL),
// which made every test of a module reaching iam/db/database.ts store-bound
const READS = /\benv(?:\.|\[['"])(DATABASE_URL|REDIS_URL)\b/
const TESTS = resolve(ROOT, 'tests') + '/'
const DECLARED = /^\s*\/\/ store-independent:(.*)$/m
const IMPORTS = /(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g
const EXTENSIONS = ['', '.ts', '.mts', '.js', '.mjs', '/index.ts', '/index.js']

function resolveImport(fromFile, target) {
  const base = resolve(dirname(fromFile), target)
  for (const ext of EXTENSIONS) {
    const candidate = base + ext
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  // `./x.js` written for a `./x.ts` source
  const swapped = base.replace(/\.js$/, '.ts')
  return existsSync(swapped) ? swapped : undefined
}

// the graph of every file reached from the tests, then "bound" spread backwards along imports
// until nothing changes (cycles between helpers are fine this way)
const edges = new Map()
const bound = new Set()
function visit(file) {
  if (edges.has(file)) return
  const text = readFileSync(file, 'utf8')
  if ((file.startsWith(TESTS) ? NAMES : READS).test(text)) bound.add(file)
  const targets = []
  edges.set(file, targets)
  for (const [, target] of text.matchAll(IMPORTS)) {
    const next = resolveImport(file, target)
    if (next && /\.m?[jt]s$/.test(next)) {
      targets.push(next)
      visit(next)
    }
  }
}
function spread() {
  for (let changed = true; changed; ) {
    changed = false
    for (const [file, targets] of edges) {
      if (!bound.has(file) && targets.some((t) => bound.has(t))) {
        bound.add(file)
        changed = true
      }
    }
  }
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return /\.test\.[mc]?[jt]s$/.test(entry.name) ? [path] : []
  })
}

const dirs = process.argv.slice(2)
if (dirs.length === 0) {
  console.error('usage: node scripts/store-bound-tests.mjs <test dir>...')
  process.exit(2)
}
const files = dirs.flatMap((dir) => testFiles(resolve(ROOT, dir)).sort())
for (const file of files) visit(file)
spread()
const independent = new Set()
const mistakes = []
for (const file of files) {
  const text = readFileSync(file, 'utf8')
  const declared = DECLARED.exec(text)
  if (!declared) continue
  // a reason of a few words at least: the next reader decides by it whether it still holds
  if (declared[1].trim().split(/\s+/).length < 4) mistakes.push(`${relative(ROOT, file)}: "store-independent:" needs its reason`)
  else if (NAMES.test(text)) mistakes.push(`${relative(ROOT, file)}: names DATABASE_URL or REDIS_URL, so its outcome can depend on them`)
  else independent.add(file)
}
if (mistakes.length > 0) {
  for (const mistake of mistakes) console.error(`store-bound-tests: ${mistake}`)
  process.exit(2)
}
for (const file of files) if (bound.has(file) && !independent.has(file)) console.log(relative(ROOT, file))
