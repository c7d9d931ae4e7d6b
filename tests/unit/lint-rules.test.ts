/**
 * The "Public APIs only" rules of eslint.config.mjs (scripts/lint/public-api.mjs, and import-x's
 * no-cycle), proven through ESLint's own Node API on small snippets linted as files of the IAM (by
 * their path only, nothing is written): a deep import into a dependency, a `_private` member and an
 * import cycle each fire, and the public spelling of the same thing stays quiet.
 */
import { join } from 'node:path'
import { ESLint } from 'eslint'
import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const IAM_FILE = 'iam/features/oidc/probe.ts'

let eslint: ESLint
// the same config without import/no-cycle, which follows every import of a snippet through the
// tree (seconds on a loaded box), for the tests of the other rules
let withoutCycles: ESLint

beforeAll(() => {
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.mjs') })
  withoutCycles = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.mjs'), overrideConfig: { rules: { 'import/no-cycle': 'off' } } })
})

/** The messages of `rule` for `code` linted as the repository file `filePath`. */
async function messagesOf(rule: string, code: string, filePath = IAM_FILE): Promise<string[]> {
  const [result] = await (rule === 'import/no-cycle' ? eslint : withoutCycles).lintText(code, { filePath: join(ROOT, filePath) })
  // a snippet ESLint could not parse, or a file it ignores, would pass every `quiet` check unseen
  expect(result!.messages.filter((m) => m.fatal || m.severity === 1).map((m) => m.message), code).toEqual([])
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message)
}

describe('no import of a path a dependency does not publish (public-api/no-private-package-path)', () => {
  const RULE = 'public-api/no-private-package-path'
  const fires = async (code: string) => expect(await messagesOf(RULE, code), code).toHaveLength(1)
  const quiet = async (code: string) => expect(await messagesOf(RULE, code), code).toEqual([])

  it("fires on oidc-provider's helpers (the package publishes only its root)", async () => {
    await fires(`import storage from 'oidc-provider/lib/helpers/als.js'\nexport const used = storage\n`)
    await fires(`export const load = () => import('oidc-provider/lib/provider.js')\n`)
    const [message] = await messagesOf(RULE, `import storage from 'oidc-provider/lib/helpers/als.js'\nexport const used = storage\n`)
    expect(message).toContain('oidc-provider')
  })

  it('fires on any lib/, dist/ or src/ path, a subpath missing from a package\'s "exports", and an internal/ folder', async () => {
    await fires(`import { createHooks } from 'hookable/dist/index.mjs'\nexport const used = createHooks\n`)
    await fires(`export * from 'h3/dist/index.mjs'\n`)
    await fires(`import { $ZodRegistry } from 'zod/v4/core/registries.js'\nexport const used = $ZodRegistry\n`)
    await fires(`import type { Hookable } from 'hookable/dist/index'\nexport type Used = Hookable\n`)
    await fires(`export const load = () => require('oidc-provider/lib/helpers/als.js')\n`)
    // nitropack exports "./dist/runtime/*", which also covers its internal/ folder
    await fires(`import { nitroApp } from 'nitropack/dist/runtime/internal/app.mjs'\nexport const used = nitroApp\n`)
  })

  it('stays quiet on package roots, published subpaths (exact or a * pattern), Node built-ins and relative paths', async () => {
    await quiet(`import Provider from 'oidc-provider'\nexport const used = Provider\n`)
    await quiet(`import { z } from 'zod'\nimport { $ZodRegistry } from 'zod/v4/core'\nexport const used = [z, $ZodRegistry]\n`)
    await quiet(`import { defineNitroPlugin } from 'nitropack/runtime'\nexport const used = defineNitroPlugin\n`)
    await quiet(`import redis from 'unstorage/drivers/redis'\nexport const used = redis\n`)
    await quiet(`import { readFileSync } from 'node:fs'\nimport { join } from 'path'\nexport const used = [readFileSync, join]\n`)
    await quiet(`import { takeReadAhead } from './request-memo'\nexport const used = takeReadAhead\n`)
  })
})

describe('no member named _x (public-api/no-underscore-member)', () => {
  const RULE = 'public-api/no-underscore-member'

  it("fires on hookable's _hooks and zod's _idmap, read, indexed or destructured", async () => {
    expect(await messagesOf(RULE, `export const hooks = (app: { hooks: object }) => (app.hooks as { _hooks?: object })._hooks\n`)).toHaveLength(1)
    expect(await messagesOf(RULE, `import { z } from 'zod'\nexport const taken = (id: string) => (z.globalRegistry as unknown as Record<string, Map<string, unknown>>)['_idmap']!.has(id)\n`)).toHaveLength(1)
    expect(await messagesOf(RULE, `export const table = (hooks: Record<string, unknown>) => {\n  const { _hooks } = hooks\n  return _hooks\n}\n`)).toHaveLength(1)
    const [message] = await messagesOf(RULE, `export const read = (x: Record<string, unknown>) => x._zod\n`)
    expect(message).toContain('_zod')
  })

  it('stays quiet on public members, #private fields and the allowed names of our own (a form\'s _csrf)', async () => {
    expect(await messagesOf(RULE, `import { z } from 'zod'\nexport const meta = (s: z.ZodType) => z.globalRegistry.get(s)?.id\n`)).toEqual([])
    expect(await messagesOf(RULE, `export class Counter {\n  #count = 0\n  next() { return ++this.#count }\n}\n`)).toEqual([])
    expect(await messagesOf(RULE, `export const token = (body: Record<string, unknown>) => body._csrf\n`, 'server/middleware/probe.ts')).toEqual([])
  })
})

describe('no import cycle (import/no-cycle)', () => {
  const RULE = 'import/no-cycle'
  const LEAF = 'tests/fixtures/import-cycle/leaf.ts'

  it('fires when a module imports one that imports it back', async () => {
    // middle.ts imports leaf.ts; this version of leaf.ts imports middle.ts
    expect(await messagesOf(RULE, `import { middle } from './middle'\nexport const leaf = middle\n`, LEAF)).toHaveLength(1)
  })

  it('stays quiet on the same modules without the import back, and on a type-only import', async () => {
    expect(await messagesOf(RULE, `export const leaf = 'leaf'\n`, LEAF)).toEqual([])
    expect(await messagesOf(RULE, `import type { middle } from './middle'\nexport const leaf: typeof middle = 'leaf'\n`, LEAF)).toEqual([])
  })

  it('is on for the IAM, the gateway and shared code', async () => {
    for (const file of ['iam/lib/probe.ts', 'iam/features/oidc/probe.ts', 'server/utils/probe.ts', 'shared/probe.ts']) {
      const config = (await eslint.calculateConfigForFile(join(ROOT, file))) as { rules: Record<string, unknown[]> }
      expect(config.rules[RULE]?.[0], file).toBe(2)
    }
  })
})
