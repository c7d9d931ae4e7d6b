/**
 * A local ESLint plugin, `public-api`: the code reaches its dependencies only through what they
 * publish (docs/architecture.md, "Public APIs only"). A patch release of a dependency may change
 * anything it does not publish, and nothing would fail until the changed path ran.
 *
 * - `no-private-package-path`: an import (static, dynamic, `export ... from`, `require`, a type
 *   import) of a package's subpath that is not public. A package with an `exports` map publishes
 *   exactly its keys (Node's rule: anything else is not importable by its name,
 *   https://nodejs.org/api/packages.html#subpath-exports); a package without one is judged by its
 *   folders: `lib/`, `dist/`, `src/`, `build/`, `internal/` and the module-format folders are its
 *   implementation, not entries (oidc-provider publishes only its root, `lib/index.js`). A folder
 *   named `internal` is never an entry, even under an exported pattern.
 * - `no-underscore-member`: a member named `_x` (read, written or destructured): the JavaScript
 *   convention for "not part of the API" (hookable's `_hooks`, zod's `_idmap` and `_zod`). Names of
 *   our own that are wire fields (a form's `_csrf`) are allowed by name in eslint.config.mjs.
 */
import { existsSync, readFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, join, parse } from 'node:path'

/** First path segments of a package without `exports` that hold its implementation. */
export const PRIVATE_FOLDERS = ['lib', 'dist', 'src', 'build', 'internal', 'cjs', 'esm', 'es', 'umd', 'source']

/** Folders, at any depth, that a package marks as its own workings by their name. */
export const INTERNAL_FOLDERS = ['internal', 'internals', '_internal', 'private']

/** Specifiers that name no package: relative and absolute paths, Node built-ins, and the apps' aliases (Nuxt's `~`, `~~`, `@`, `@@`; `#` imports and virtual modules). */
const notAPackage = (specifier) => /^(\.|\/|~|#|@@?\/|virtual:|node:)/.test(specifier) || isBuiltin(specifier)

/** `@scope/name/sub/path` -> ['@scope/name', 'sub/path']; `name` -> ['name', '']. */
function splitSpecifier(specifier) {
  const parts = specifier.split('/')
  const size = specifier.startsWith('@') ? 2 : 1
  return [parts.slice(0, size).join('/'), parts.slice(size).join('/')]
}

const manifests = new Map()

/** The package.json of `name` as Node would find it from `fromDir` (the nearest node_modules up the tree), or the repository's own for a self-reference. */
function findManifest(name, fromDir) {
  const key = `${name}\0${fromDir}`
  if (manifests.has(key)) return manifests.get(key)
  let found
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json')
    if (existsSync(candidate)) {
      found = JSON.parse(readFileSync(candidate, 'utf8'))
      break
    }
    const own = join(dir, 'package.json')
    if (existsSync(own)) {
      const manifest = JSON.parse(readFileSync(own, 'utf8'))
      if (manifest.name === name) {
        found = manifest
        break
      }
    }
    if (dir === parse(dir).root) break
  }
  manifests.set(key, found)
  return found
}

/** Whether `./subpath` is a key of the `exports` map (exact, or a `*` pattern), and not one mapped to null. */
function isExported(exportsField, subpath) {
  if (typeof exportsField === 'string' || Array.isArray(exportsField)) return false
  if (exportsField === null || typeof exportsField !== 'object') return false
  const keys = Object.keys(exportsField)
  // an object of conditions only (`{ import, require }`) publishes the root alone
  if (!keys.some((key) => key.startsWith('.'))) return false
  const wanted = `./${subpath}`
  let matched
  for (const key of keys) {
    if (key === wanted) {
      matched = key
      break
    }
    const star = key.indexOf('*')
    if (star === -1) continue
    const prefix = key.slice(0, star)
    const suffix = key.slice(star + 1)
    if (wanted.length >= prefix.length + suffix.length && wanted.startsWith(prefix) && wanted.endsWith(suffix)) matched ??= key
  }
  return matched !== undefined && exportsField[matched] !== null
}

/** Why `specifier`, imported from a file in `fromDir`, is not public; undefined when it is. */
export function privatePathReason(specifier, fromDir) {
  if (typeof specifier !== 'string' || notAPackage(specifier)) return undefined
  const [name, subpath] = splitSpecifier(specifier)
  if (!subpath) return undefined
  // a pattern export may cover a package's internals too (nitropack's "./dist/runtime/*" holds
  // dist/runtime/internal/): a folder the package names internal is not an entry whatever the map says
  const internal = subpath.split('/').find((segment) => INTERNAL_FOLDERS.includes(segment))
  if (internal) return `"${internal}/" is ${name}'s own implementation`
  const manifest = findManifest(name, fromDir)
  if (manifest?.exports !== undefined) {
    return isExported(manifest.exports, subpath) ? undefined : `"./${subpath}" is not in the "exports" of ${name}'s package.json`
  }
  const folder = subpath.split('/')[0]
  return PRIVATE_FOLDERS.includes(folder) ? `${name} has no "exports" map and "${folder}/" holds its implementation` : undefined
}

/** The string a module reference names, when it is a literal (or a template without expressions). */
function literalSource(node) {
  if (!node) return undefined
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) return node.quasis[0].value.cooked
  if (node.type === 'TSLiteralType') return literalSource(node.literal)
  return undefined
}

const noPrivatePackagePath = {
  meta: {
    type: 'problem',
    docs: { description: "Import only a dependency's public entries: its \"exports\", or its root and non-implementation files when it has none." },
    schema: [],
    messages: { private: "'{{specifier}}' reaches past {{name}}'s public API: {{reason}}. Import a published entry instead (docs/architecture.md, Public APIs only)." },
  },
  create(context) {
    const fromDir = dirname(context.physicalFilename)
    const check = (sourceNode) => {
      const specifier = literalSource(sourceNode)
      const reason = privatePathReason(specifier, fromDir)
      if (reason) context.report({ node: sourceNode, messageId: 'private', data: { specifier, name: splitSpecifier(specifier)[0], reason } })
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => node.source && check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportType: (node) => check(node.argument),
      TSExternalModuleReference: (node) => check(node.expression),
      CallExpression(node) {
        const { callee } = node
        const isRequire = (callee.type === 'Identifier' && callee.name === 'require') ||
          (callee.type === 'MemberExpression' && callee.object.type === 'Identifier' && callee.object.name === 'require' && callee.property.type === 'Identifier' && callee.property.name === 'resolve')
        if (isRequire && node.arguments.length > 0) check(node.arguments[0])
      },
    }
  },
}

const UNDERSCORE = /^_[a-zA-Z]/

const noUnderscoreMember = {
  meta: {
    type: 'problem',
    docs: { description: 'No member named `_x`: by convention not part of its owner\'s API.' },
    schema: [{ type: 'object', properties: { allow: { type: 'array', items: { type: 'string' } } }, additionalProperties: false }],
    messages: { private: "'{{name}}' is private by convention: a release of its owner may change or drop it. Use the public API (docs/architecture.md, Public APIs only)." },
  },
  create(context) {
    const allow = new Set(context.options[0]?.allow ?? [])
    const nameOf = (key, computed) => {
      if (!computed && key.type === 'Identifier') return key.name
      return literalSource(key)
    }
    const check = (node, key, computed) => {
      const name = nameOf(key, computed)
      if (name !== undefined && UNDERSCORE.test(name) && !allow.has(name)) context.report({ node: key, messageId: 'private', data: { name } })
    }
    return {
      MemberExpression: (node) => check(node, node.property, node.computed),
      'ObjectPattern > Property': (node) => check(node, node.key, node.computed),
    }
  },
}

export default {
  meta: { name: 'public-api' },
  rules: { 'no-private-package-path': noPrivatePackagePath, 'no-underscore-member': noUnderscoreMember },
}
