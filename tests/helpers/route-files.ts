/**
 * The IAM's route files (iam/routes) as Nitro's file-based router reads them, and which table
 * entries (iam/contract/) each one serves. Shared by the tests that hold the table and the files
 * to each other.
 */
import { readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import type { RouteContract } from '../../iam/contract/define'

export const ROUTES_DIR = join(import.meta.dirname, '../../iam/routes')

export interface RouteFile {
  /** relative to iam/routes, with '/' separators */
  file: string
  /** undefined: the file answers every method */
  method?: string
  path: string
}

export function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? listFiles(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

/** Nitro's file-based routing: `<name>.<method>.ts`, `[param]` => `:param`, `index` => the folder. */
export function routeFileOf(absolute: string): RouteFile {
  const file = relative(ROUTES_DIR, absolute).split(sep).join('/')
  const match = /^(.*?)(?:\.(get|post|put|patch|delete|head))?\.ts$/.exec(file)
  if (!match) throw new Error(`not a route file: ${file}`)
  const segments = match[1]!.split('/').map((segment) => segment.replace(/^\[(\w+)\]$/, ':$1'))
  if (segments.at(-1) === 'index') segments.pop()
  return { file, method: match[2]?.toUpperCase(), path: `/${segments.join('/')}` }
}

/** A file's pattern covers an entry's path: a file parameter matches any segment, a table parameter only one of the same name. */
export function covers(route: RouteFile, entry: RouteContract): boolean {
  if (route.method && route.method !== entry.method) return false
  const want = route.path.split('/')
  const got = entry.path.split('/')
  if (want.length !== got.length) return false
  return want.every((segment, i) => {
    const other = got[i]!
    if (other.startsWith(':')) return segment === other
    return segment.startsWith(':') || segment === other
  })
}

/**
 * The OpenID Provider's mount (routes/oidc/[...path].ts): the provider's own endpoints, described
 * by its discovery document ({issuer}/.well-known/openid-configuration), not by this table. The
 * SCIM service's (routes/scim/[...path].ts): RFC 7644's endpoints, described by its own
 * ServiceProviderConfig, ResourceTypes and Schemas.
 */
export const MOUNTS = new Set(['oidc/[...path].ts', 'scim/[...path].ts'])

/** Every route file under iam/routes except the mounts, with its absolute path. */
export function routeFiles(): Array<RouteFile & { absolute: string }> {
  return listFiles(ROUTES_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map((absolute) => ({ ...routeFileOf(absolute), absolute }))
    .filter((route) => !MOUNTS.has(route.file))
}
