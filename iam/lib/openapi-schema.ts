/**
 * One zod schema of the route table as an OpenAPI 3.1 Schema Object (JSON Schema 2020-12, the
 * dialect OpenAPI 3.1 uses), via zod 4's `z.toJSONSchema`.
 *
 * Two things zod writes for a stand-alone JSON Schema document are wrong inside an OpenAPI
 * document, where `#` is the OpenAPI document's root: `$defs` with `#/$defs/...` references
 * (schemas with a `.meta({ id })`, or reused by a recursive one) and `#` itself (a recursive
 * schema pointing at its own root). Those are hoisted into `components.schemas` and the references
 * rewritten, so every `$ref` in the document resolves.
 *
 * Unrepresentable types (z.date, z.custom, transforms' outputs, bigint ...) do not throw: the
 * request schemas are what the IAM enforces at run time, so an unexpressible part is documented as
 * "anything" (`{}`) rather than taking the whole document down; a date becomes the ISO 8601 string
 * it is serialised as.
 */
import { z } from 'zod'

export type JsonSchema = { [key: string]: unknown }

/** `input` for what a client sends (defaults optional, before transforms); `output` for what the IAM answers. */
export type SchemaIo = 'input' | 'output'

/** OpenAPI component names: ^[a-zA-Z0-9._-]+$ */
const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/
const REF_PREFIX = '#/components/schemas/'

function unrepresentable(ctx: { zodSchema: z.core.$ZodTypes }): JsonSchema {
  return ctx.zodSchema instanceof z.core.$ZodDate ? { type: 'string', format: 'date-time' } : {}
}

/** Rewrites every `$ref` of `node` (in place) through `rename`. */
function rewriteRefs(node: unknown, rename: (ref: string) => string): void {
  if (Array.isArray(node)) {
    for (const item of node) rewriteRefs(item, rename)
    return
  }
  if (node === null || typeof node !== 'object') return
  const record = node as JsonSchema
  for (const [key, value] of Object.entries(record)) {
    if (key === '$ref' && typeof value === 'string') record[key] = rename(value)
    else rewriteRefs(value, rename)
  }
}

/**
 * Flattens `anyOf` inside `anyOf` and drops repeated members, in place: response groups joined per
 * status (responses.ts) nest unions of the same bodies, which say nothing more than the flat set.
 */
function flattenUnions(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) flattenUnions(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const record = node as JsonSchema
  for (const value of Object.values(record)) flattenUnions(value)
  if (!Array.isArray(record.anyOf)) return
  const members = (record.anyOf as JsonSchema[]).flatMap((member) => (Object.keys(member).length === 1 && Array.isArray(member.anyOf) ? (member.anyOf as JsonSchema[]) : [member]))
  const unique = [...new Map(members.map((member) => [JSON.stringify(member), member])).values()]
  if (unique.length === 1 && Object.keys(record).length === 1) {
    delete record.anyOf
    Object.assign(record, unique[0])
  } else {
    record.anyOf = unique
  }
}

/** Every `$ref` string anywhere in `node`. */
function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs)
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refs(value)))
}

function hasRootRef(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasRootRef)
  if (node === null || typeof node !== 'object') return false
  return Object.entries(node).some(([key, value]) => (key === '$ref' ? value === '#' : hasRootRef(value)))
}

/** A free component name: `preferred` when unused (or holding the same schema), else scoped under `base`. */
function claimName(components: Record<string, JsonSchema>, preferred: string, base: string, schema: JsonSchema): string {
  const same = (name: string) => JSON.stringify(components[name]) === JSON.stringify(schema)
  for (const candidate of [preferred, `${base}.${preferred}`]) {
    if (COMPONENT_NAME.test(candidate) && (components[candidate] === undefined || same(candidate))) return candidate
  }
  for (let n = 2; ; n++) {
    const candidate = `${base}.${preferred.replace(/[^A-Za-z0-9._-]/g, '_')}.${n}`
    if (components[candidate] === undefined || same(candidate)) return candidate
  }
}

/**
 * The Schema Object for `schema`; definitions it shares are added to `components` (which the
 * caller puts under `components.schemas`). `base` names this schema's own components (e.g.
 * `login.body`).
 */
export function toOpenApiSchema(schema: z.ZodType, io: SchemaIo, base: string, components: Record<string, JsonSchema>): JsonSchema {
  const generated = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable }) as JsonSchema
  flattenUnions(generated)
  const { $schema: _dialect, $defs, ...root } = generated
  const defs = ($defs ?? {}) as Record<string, JsonSchema>
  const names = new Map<string, string>()
  // zod names the definitions it extracts without an id `__schema0`, `__schema1`...: scope those.
  const preferred = (name: string) => (name.startsWith('__') ? `${base}.${name.slice(2)}` : name)
  // A definition is compared with a component of the same name as it will be stored: with its
  // references already pointing at components. So the ones it references are named first (a
  // shared body referencing the shared `errorCode` finds its twin instead of taking a new name per
  // route); a cycle among definitions falls back to the names they would prefer.
  const dependencies = (def: JsonSchema) => refs(def).filter((ref) => ref.startsWith('#/$defs/')).map((ref) => ref.slice('#/$defs/'.length))
  const asStored = (def: JsonSchema, self: string) => {
    const copy = structuredClone(def)
    rewriteRefs(copy, (ref) => {
      if (!ref.startsWith('#/$defs/')) return ref
      const dep = ref.slice('#/$defs/'.length)
      return `${REF_PREFIX}${names.get(dep) ?? (dep === self ? preferred(self) : preferred(dep))}`
    })
    return copy
  }
  let pending = Object.keys(defs)
  while (pending.length > 0) {
    const ready = pending.filter((name) => dependencies(defs[name]!).every((dep) => dep === name || names.has(dep)))
    const batch = ready.length > 0 ? ready : pending
    for (const name of batch) names.set(name, claimName(components, preferred(name), base, asStored(defs[name]!, name)))
    pending = pending.filter((name) => !names.has(name))
  }
  const selfName = hasRootRef(root) ? claimName(components, base, base, asStored(root, '')) : undefined
  const rename = (ref: string): string => {
    if (ref === '#' && selfName) return `${REF_PREFIX}${selfName}`
    const name = ref.startsWith('#/$defs/') ? names.get(ref.slice('#/$defs/'.length)) : undefined
    return name ? `${REF_PREFIX}${name}` : ref
  }
  for (const [name, def] of Object.entries(defs)) {
    rewriteRefs(def, rename)
    components[names.get(name) as string] = def
  }
  rewriteRefs(root, rename)
  if (!selfName) return root
  components[selfName] = root
  return { $ref: `${REF_PREFIX}${selfName}` }
}
