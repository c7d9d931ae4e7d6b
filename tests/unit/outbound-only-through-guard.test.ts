/**
 * Every outbound call the servers make to a URL someone configured or sent goes through
 * shared/outbound.ts (docs/architecture.md, "Outbound calls go through one guard"). This test reads
 * the server code of the IAM, the gateway and the shared helpers and fails on any other way out: a
 * call of `fetch`/`$fetch`/`ofetch`, a request function of node:http, node:https or undici, or a
 * socket opened by node:net or node:tls. The few places that are allowed another way say why below.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const SOURCES = ['iam', 'server', 'shared']
const SKIPPED_DIRS = new Set(['node_modules', '.output', '.output-test', '.nitro', 'test-build'])

/** Files that reach out another way, and why that way is not a URL someone configured or sent. */
const ALLOWED: Record<string, string> = {
  'shared/outbound.ts': 'the guard itself',
  'iam/client/iam-client.ts': "the gateway's signed calls to its own IAM (iam.url, the deployment's own service)",
  'server/utils/upstream-proxy.ts': "the API proxy: its base URL is the operator's own service, and a request changes only the canonicalised path below it",
}

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path)
  const stat = statSync(full)
  if (stat.isFile()) return /\.(?:ts|mts|js|mjs)$/.test(path) && !path.endsWith('.d.ts') ? [path] : []
  return readdirSync(full)
    .filter((name) => !SKIPPED_DIRS.has(name))
    .flatMap((name) => sourceFiles(join(path, name)))
}

const WAYS_OUT: Array<[string, RegExp]> = [
  ['a fetch call', /(?<![\w.])(?:globalThis\.)?(?:fetch|\$fetch|ofetch)\s*\(/],
  ['a node:http or node:https request', /from\s+['"]node:https?['"]/],
  ['undici', /from\s+['"]undici['"]/],
  ['a raw socket', /from\s+['"]node:(?:net|tls)['"][^\n]*\b(?:connect|createConnection|Socket)\b|\b(?:net|tls)\.(?:connect|createConnection)\(/],
]

/** The ways out in `text`, comments left out (a comment may name fetch). */
export function waysOut(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
  const found: string[] = []
  for (const [name, pattern] of WAYS_OUT) {
    if (pattern.test(code)) {
      // node:http imported for types or server objects only is no way out
      if (name.startsWith('a node:http') && !/\b(?:request|get)\s*[,}]|\brequest as\b|\bget as\b|\bAgent\b/.test(code.match(/import[^;]*from\s+['"]node:https?['"]/g)?.join('\n') ?? '')) continue
      found.push(name)
    }
  }
  return found
}

describe('outbound calls leave only through the guard', () => {
  it('finds the server code (the test reads the right folders)', () => {
    const files = SOURCES.flatMap((dir) => sourceFiles(dir))
    expect(files).toContain('shared/outbound.ts')
    expect(files).toContain('server/utils/oauth/http-options.ts')
    expect(files.length).toBeGreaterThan(200)
  })

  it('recognises each way out, and not a type import or a comment', () => {
    expect(waysOut('const r = await fetch(url)')).toEqual(['a fetch call'])
    expect(waysOut('return globalThis.fetch(input, init)')).toEqual(['a fetch call'])
    expect(waysOut("import { request } from 'node:https'")).toEqual(['a node:http or node:https request'])
    expect(waysOut("import { Agent } from 'undici'")).toEqual(['undici'])
    expect(waysOut("import net from 'node:net'\nnet.connect(80, host)")).toEqual(['a raw socket'])
    expect(waysOut("import type { IncomingMessage } from 'node:http'")).toEqual([])
    expect(waysOut('// the library calls fetch(url) itself')).toEqual([])
    expect(waysOut('event.fetch = localFetch')).toEqual([])
  })

  it('has no way out in the servers except through shared/outbound.ts and the listed places', () => {
    const offenders: string[] = []
    for (const file of SOURCES.flatMap((dir) => sourceFiles(dir))) {
      if (file in ALLOWED) continue
      for (const way of waysOut(readFileSync(join(ROOT, file), 'utf8'))) offenders.push(`${relative('.', file)}: ${way}`)
    }
    expect(offenders).toEqual([])
  })
})
