/**
 * The import boundaries of eslint.config.mjs, proven through ESLint's own Node API: a one-line file
 * placed (by its path only, nothing is written) in each layer imports a real file of another layer,
 * and the boundary rule either fires or stays quiet. The files imported are picked from the tree
 * when the test runs, so renames inside a folder do not break it.
 */
import { readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { ESLint } from 'eslint'
import { beforeAll, describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const RULE = 'import/no-restricted-paths'

let eslint: ESLint

beforeAll(() => {
  // import/no-cycle follows every import of the probe through the tree, seconds per probe on a
  // loaded box; it has its own test (lint-rules.test.ts) and does not decide a boundary
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.mjs'), overrideConfig: { rules: { 'import/no-cycle': 'off' } } })
})

/** The first TypeScript file under `dir` (repository-relative), searched depth first in name order. */
function someFile(dir: string): string {
  const walk = (at: string): string | undefined => {
    const entries = readdirSync(join(ROOT, at), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))
    const file = entries.find((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    if (file) return `${at}/${file.name}`
    for (const e of entries) if (e.isDirectory()) {
      const found = walk(`${at}/${e.name}`)
      if (found) return found
    }
    return undefined
  }
  const found = walk(dir)
  if (!found) throw new Error(`no TypeScript file under ${dir}`)
  return found
}

/** The specifier a file at `from` writes to import the repository file `target`. */
function specifier(from: string, target: string): string {
  const spec = relative(join(ROOT, from, '..'), join(ROOT, target)).replace(/\.ts$/, '')
  return spec.startsWith('.') ? spec : `./${spec}`
}

/** The boundary messages when a file at `filePath` imports `target` (a repository path or a package). */
async function boundaryMessages(filePath: string, target: string): Promise<string[]> {
  const spec = target.includes('/') && !target.startsWith('@') ? specifier(filePath, target) : target
  const line = `import * as imported from '${spec}'\nexport const used = imported\n`
  const code = filePath.endsWith('.vue') ? `<script setup lang="ts">\n${line}</script>\n` : line
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, filePath) })
  // a file ESLint could not parse, or one it ignores, would pass every `quiet` check unseen
  expect(result!.messages.filter((m) => m.fatal || m.severity === 1).map((m) => m.message), filePath).toEqual([])
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message)
}

const fires = async (filePath: string, target: string) => expect(await boundaryMessages(filePath, target), `${filePath} -> ${target}`).not.toEqual([])
const quiet = async (filePath: string, target: string) => expect(await boundaryMessages(filePath, target), `${filePath} -> ${target}`).toEqual([])

describe('IAM layers: routes -> http -> features -> db -> fast -> lib', () => {
  it('iam/lib, iam/fast and iam/db may not import iam/features, iam/http or iam/routes', async () => {
    for (const from of ['iam/lib/probe.ts', 'iam/fast/probe.ts', 'iam/db/probe.ts']) {
      await fires(from, someFile('iam/features'))
      await fires(from, someFile('iam/http'))
      await fires(from, someFile('iam/routes'))
    }
  })

  it('iam/lib is the bottom: it may not import iam/db or iam/fast', async () => {
    await fires('iam/lib/probe.ts', someFile('iam/db'))
    await fires('iam/lib/probe.ts', someFile('iam/fast'))
  })

  it('iam/fast may import iam/lib, the table types and itself, nothing else of the IAM; every layer above lib may import it', async () => {
    await quiet('iam/fast/probe.ts', someFile('iam/lib'))
    await quiet('iam/fast/probe.ts', 'iam/db/schema.ts')
    await quiet('iam/fast/probe.ts', someFile('iam/fast'))
    await fires('iam/fast/probe.ts', 'iam/db/database.ts')
    await fires('iam/fast/probe.ts', someFile('iam/contract'))
    await fires('iam/fast/probe.ts', 'iam/context.ts')
    for (const from of ['iam/db/probe.ts', 'iam/features/probe/probe.ts', 'iam/http/probe.ts', 'iam/routes/probe.ts']) await quiet(from, someFile('iam/fast'))
  })

  it('iam/features may not import iam/http or iam/routes (and may import lib and db)', async () => {
    await fires('iam/features/probe/probe.ts', someFile('iam/http'))
    await fires('iam/features/probe/probe.ts', someFile('iam/routes'))
    await quiet('iam/features/probe/probe.ts', someFile('iam/lib'))
    await quiet('iam/features/probe/probe.ts', someFile('iam/db'))
  })

  it('iam/http may not import iam/routes (and may import features)', async () => {
    await fires('iam/http/probe.ts', someFile('iam/routes'))
    await quiet('iam/http/probe.ts', someFile('iam/features'))
  })

  it('iam/routes, iam/middleware and iam/plugins may import http, features, lib and db', async () => {
    for (const from of ['iam/routes/probe.get.ts', 'iam/middleware/99.probe.ts', 'iam/plugins/99.probe.ts']) {
      for (const layer of ['iam/http', 'iam/features', 'iam/lib', 'iam/db']) await quiet(from, someFile(layer))
    }
  })
})

describe('the sessions feature does not know the OpenID Provider', () => {
  it('iam/features/sessions may not import iam/features/oidc; oidc may import sessions (its listener registers there)', async () => {
    await fires('iam/features/sessions/probe.ts', 'iam/features/oidc/accounts.ts')
    await fires('iam/features/sessions/probe.ts', someFile('iam/features/oidc'))
    await quiet('iam/features/oidc/probe.ts', 'iam/features/sessions/session-hooks.ts')
    await quiet('iam/features/sessions/probe.ts', someFile('iam/features/tokens'))
  })
})

describe('iam/contract: zod and itself only', () => {
  it('iam/contract may not import iam/lib, iam/features or a package other than zod', async () => {
    await fires('iam/contract/probe.ts', 'iam/lib/text.ts')
    await fires('iam/contract/probe.ts', someFile('iam/features'))
    await fires('iam/contract/probe.ts', 'h3')
  })

  it('iam/contract may import zod and other contract files', async () => {
    await quiet('iam/contract/probe.ts', 'zod')
    await quiet('iam/contract/probe.ts', 'iam/contract/define.ts')
  })
})

describe('iam/client: the contract and itself only', () => {
  it('iam/client may not import iam/lib, iam/features or a package', async () => {
    await fires('iam/client/probe.ts', someFile('iam/lib'))
    await fires('iam/client/probe.ts', someFile('iam/features'))
    await fires('iam/client/probe.ts', 'h3')
  })

  it('iam/client may import iam/contract and iam/client', async () => {
    await quiet('iam/client/probe.ts', 'iam/contract/routes.ts')
    await quiet('iam/client/probe.ts', someFile('iam/client'))
  })
})

describe('the IAM does not import the gateway', () => {
  it('nothing in iam/ imports server/ or the Nuxt app (pages, components, composables)', async () => {
    await fires('iam/features/probe/probe.ts', someFile('server/utils'))
    await fires('iam/lib/probe.ts', someFile('composables'))
    await fires('iam/routes/probe.get.ts', 'components/FormField.vue')
    await fires('iam/contract/probe.ts', someFile('server'))
  })
})

describe('the gateway imports from iam/ only the client and the contract', () => {
  it('server/, pages/, components/, composables/ may not import iam/lib, iam/features, iam/http or iam/db', async () => {
    await fires('server/utils/probe.ts', someFile('iam/lib'))
    await fires('server/routes/probe.get.ts', someFile('iam/features'))
    await fires('server/utils/probe.ts', someFile('iam/http'))
    await fires('composables/probe.ts', someFile('iam/db'))
    await fires('pages/probe.vue', someFile('iam/lib'))
    await fires('components/ProbeCard.vue', someFile('iam/features'))
  })

  it('the gateway may not import iam/lib or iam/features through a Nuxt alias (~/, ~~/, @/, @@/) either', async () => {
    for (const alias of ['~', '~~', '@', '@@']) {
      const [result] = await eslint.lintText(`import { isIP } from '${alias}/iam/lib/clock'\nexport const used = isIP\n`, { filePath: join(ROOT, 'server/utils/probe.ts') })
      expect(result!.messages.map((m) => m.ruleId), alias).toContain('no-restricted-imports')
    }
    const [allowed] = await eslint.lintText(`import { ROUTES } from '~~/iam/contract/routes'\nexport const used = ROUTES\n`, { filePath: join(ROOT, 'server/utils/probe.ts') })
    expect(allowed!.messages).toEqual([])
  })

  it('the gateway may import iam/client, iam/contract and shared/', async () => {
    await quiet('server/utils/probe.ts', 'iam/client/iam-client.ts')
    await quiet('server/utils/probe.ts', 'iam/contract/routes.ts')
    await quiet('server/utils/probe.ts', someFile('shared'))
    await quiet('pages/probe.vue', 'iam/contract/routes.ts')
  })
})

describe('shared/: code both apps run', () => {
  it('shared/ may not import the IAM or the gateway', async () => {
    await fires('shared/probe.ts', someFile('iam/lib'))
    await fires('shared/probe.ts', someFile('server/utils'))
  })

  it('both apps may import shared/', async () => {
    await quiet('iam/lib/probe.ts', someFile('shared'))
    await quiet('iam/features/probe/probe.ts', someFile('shared'))
  })
})

describe('tests, bench and scripts may import anything', () => {
  it('tests/, bench/ and scripts/ are outside every boundary', async () => {
    for (const from of ['tests/unit/probe.ts', 'bench/probe.ts', 'scripts/probe.ts']) {
      await quiet(from, someFile('iam/routes'))
      await quiet(from, someFile('iam/features'))
      await quiet(from, someFile('server/utils'))
    }
  })
})
