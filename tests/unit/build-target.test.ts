/**
 * Both builds compile for the Node release package.json's engines names (iam/nitro.config.ts,
 * nuxt.config.ts): Nitro's own esbuild default (es2019) predates BigInt literals and down-levels
 * syntax that Node runs as it is, so a release that moves `engines` moves the targets with it.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const engines = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node
const engineMajor = /^>=\s*(\d+)/.exec(engines)?.[1]

it.each(['iam/nitro.config.ts', 'nuxt.config.ts'])('%s compiles for the Node major package.json engines names', (file) => {
  const targets = [...readFileSync(join(ROOT, file), 'utf8').matchAll(/esbuild: \{ options: \{ target: '([^']+)' \} \}/g)].map((m) => m[1])
  expect(engineMajor).toMatch(/^\d+$/)
  expect(targets).toEqual([`node${engineMajor}`])
})
