/**
 * The dependencies whose behaviour a fast path or the error path relies on beyond their typed API
 * are pinned to the exact version installed, so an upgrade is a reviewed change of package.json
 * (docs/architecture.md, Public APIs only): oidc-provider (the provider's request context read by
 * iam/features/oidc/request-memo.ts), h3 (iam/plugins/01.error-status.ts wraps the app's handler,
 * which its node listener calls on every request before it replaces the status) and pg (the
 * pipelined, named statements of iam/db/database.ts and pipelined.ts).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const PINNED = ['oidc-provider', 'h3', 'pg']

type Manifest = { dependencies: Record<string, string> }
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Manifest & { version: string }> }

it.each(PINNED)('%s is pinned to the exact version package-lock.json installs', (name) => {
  const wanted = manifest.dependencies[name]
  expect(wanted, name).toMatch(/^\d+\.\d+\.\d+$/)
  expect(lock.packages['']!.dependencies[name], 'the lock records the same range').toBe(wanted)
  expect(lock.packages[`node_modules/${name}`]!.version, 'the lock installs that version').toBe(wanted)
})
