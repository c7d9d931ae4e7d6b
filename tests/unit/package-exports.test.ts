/**
 * The package's public surface (docs/public-api.md): `exports` in package.json lists exactly the
 * entries the page describes, each names a file that exists, and nothing else of the repository
 * can be imported by package name, so an app that extends the layer cannot come to lean on an
 * internal file.
 */
import { existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, string | Record<string, string>> }
const doc = readFileSync(join(ROOT, 'docs/public-api.md'), 'utf8')

/** The export keys the page describes: one `## \`identity-platform...\`` heading each. */
function documentedEntries(): string[] {
  const headings = [...doc.matchAll(/^## `([^`]+)`\s*$/gm)].map((m) => m[1]!)
  return headings.map((name) => {
    if (name === pkg.name) return '.'
    if (!name.startsWith(`${pkg.name}/`)) throw new Error(`docs/public-api.md: heading ${name} is not an entry of ${pkg.name}`)
    return `./${name.slice(pkg.name.length + 1)}`
  })
}

const targets = (value: string | Record<string, string>): string[] => (typeof value === 'string' ? [value] : Object.values(value))

describe('package.json exports: the declared public surface', () => {
  it('lists exactly the entries docs/public-api.md describes, no more and no fewer', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(documentedEntries().sort())
  })

  it('has no wildcard entry: every importable file is named one by one', () => {
    for (const key of Object.keys(pkg.exports)) expect(key, key).not.toContain('*')
  })

  it('points every entry at a file that exists', () => {
    for (const [key, value] of Object.entries(pkg.exports)) {
      for (const target of targets(value)) expect(existsSync(join(ROOT, target)), `${key} -> ${target}`).toBe(true)
    }
  })

  it('resolves the package name to the layer config, and refuses a deep import of an internal file', () => {
    // a package may import itself by name (Node's self-reference): the same resolution an app's
    // `extends: ['identity-platform']` goes through in c12
    const require = createRequire(join(ROOT, 'package.json'))
    expect(require.resolve(pkg.name)).toBe(join(ROOT, 'nuxt.config.ts'))
    expect(require.resolve(`${pkg.name}/verifier`)).toBe(join(ROOT, 'verifier/index.js'))
    for (const internal of ['iam/context.ts', 'server/utils/bff/session.ts', 'iam/client/hmac.ts']) {
      expect(() => require.resolve(`${pkg.name}/${internal}`), internal).toThrow(/not defined by "exports"/)
    }
  })

  it('lets a Nuxt app installed beside it extend the layer by its package name', async () => {
    const { loadNuxtConfig } = await import('nuxt/kit')
    const app = mkdtempSync(join(tmpdir(), 'extends-by-name-'))
    try {
      mkdirSync(join(app, 'node_modules'))
      symlinkSync(ROOT, join(app, 'node_modules', pkg.name), 'dir')
      writeFileSync(join(app, 'nuxt.config.ts'), `export default defineNuxtConfig({ extends: ['${pkg.name}'] })\n`)
      const config = await loadNuxtConfig({ cwd: app })
      // the layer's own alias (nuxt.config.ts): present only when its config was found and merged
      const alias = config.alias['#identity-shared']
      expect(alias, JSON.stringify(config.alias)).toBeDefined()
      expect(realpathSync(alias!)).toBe(realpathSync(join(ROOT, 'shared')))
    } finally {
      rmSync(app, { recursive: true, force: true })
    }
  })
})
