/**
 * One route, one unit (iam/http/route.ts): a route's table entry is what runs.
 * - defineRoute refuses, when the route module loads, steps that do not match the entry: a listed
 *   limiter nobody consumes, a limiter the entry does not list, input parsed without a schema or
 *   parsed twice. A route cannot quietly skip what its entry promises.
 * - every route file under iam/routes is such a unit: its default export is defineRoute's handler
 *   for the table entry with the file's method and path, and every entry is served by exactly one
 *   file. No route file answers outside the unit (and so outside its authentication and guards).
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineRoutes, json, noBody, type RouteContract } from '../../iam/contract/define'
import { ROUTES } from '../../iam/contract/routes'
import { body, counted, defineRoute, limit, params, query, type RouteStep } from '../../iam/http/route'
import { covers, routeFiles } from '../helpers/route-files'

const OK = { 200: { description: 'OK' } }

/** Small entries of the table's shape, each with what one check needs. */
const FAKE = defineRoutes({
  limited: { method: 'POST', path: '/fake/limited', summary: 'two limiters', auth: 'none', limiters: ['codes', 'links'], request: noBody, responses: OK },
  plain: { method: 'GET', path: '/fake/plain', summary: 'no input, no limiter', auth: 'none', limiters: [], request: noBody, responses: OK },
  withBody: { method: 'POST', path: '/fake/body', summary: 'a JSON body', auth: 'full', limiters: [], request: json(), body: z.object({ name: z.string() }), responses: OK },
  withAll: {
    method: 'POST',
    path: '/fake/:kind',
    summary: 'params, query and body',
    auth: 'none',
    limiters: [],
    request: json(),
    params: z.object({ kind: z.string() }),
    query: z.object({ page: z.string() }),
    body: z.object({ name: z.string() }),
    responses: OK,
  },
})

const handler = () => ({ ok: true })
const ipKey = ({ ip }: { ip: string }) => ({ ip, on: 'ip' as const })
const define = (entry: RouteContract, steps: RouteStep[]) => () => defineRoute(entry, steps, handler)

describe('defineRoute checks the steps against the entry when the route is defined', () => {
  it('accepts steps that match the entry and attaches the entry to the handler', () => {
    const unit = defineRoute(FAKE.limited, [limit('codes', ipKey), counted('links')], handler)
    expect(unit.route).toBe(FAKE.limited)
    expect(typeof unit).toBe('function')
    expect(define(FAKE.withAll, [params(), query(), body()])).not.toThrow()
    // parts a step does not parse are parsed after the steps, so no step is needed for them
    expect(define(FAKE.withAll, [])).not.toThrow()
    expect(define(FAKE.plain, [])).not.toThrow()
  })

  it('refuses a limiter the entry lists that no step consumes or hands to the feature', () => {
    expect(define(FAKE.limited, [limit('codes', ipKey)])).toThrow(/lists the limiter links, which no step consumes/)
    expect(define(FAKE.limited, [])).toThrow(/route unit does not match its table entry: POST \/fake\/limited/)
  })

  it('refuses a limiter consumed by two steps', () => {
    expect(define(FAKE.limited, [limit('codes', ipKey), counted('links'), counted('codes')])).toThrow(/limiter codes, which several steps consume/)
  })

  it('refuses a step that names a limiter the entry does not list', () => {
    expect(define(FAKE.plain, [limit('codes', ipKey)])).toThrow(/uses the limiter codes, which its table entry does not list/)
    expect(define(FAKE.limited, [limit('codes', ipKey), counted('links'), counted('refresh')])).toThrow(/uses the limiter refresh/)
  })

  it('refuses a body step on an entry without a body schema', () => {
    expect(define(FAKE.plain, [body()])).toThrow(/parses its body, for which its table entry has no schema/)
  })

  it('refuses a params or query step on an entry without that schema', () => {
    expect(define(FAKE.withBody, [params()])).toThrow(/parses its params, for which its table entry has no schema/)
    expect(define(FAKE.withBody, [query()])).toThrow(/parses its query, for which its table entry has no schema/)
  })

  it('refuses two steps parsing the same part', () => {
    expect(define(FAKE.withBody, [body(), body({ markupCheck: false })])).toThrow(/its body is parsed twice/)
    expect(define(FAKE.withAll, [query(), query()])).toThrow(/its query is parsed twice/)
  })
})

const entries = Object.entries(ROUTES) as Array<[string, RouteContract]>
const files = routeFiles()
/** The ids a file's source hands to defineRoute, in `defineRoute(ROUTES.<id>` (whitespace allowed). */
const definedIds = (source: string) => [...source.matchAll(/\bdefineRoute\(\s*ROUTES\.(\w+)\b/g)].map((m) => m[1]!)

describe('every route file is a unit of its table entry (source)', () => {
  it('reads the route files (the check reads the right folder)', () => {
    expect(files.length).toBeGreaterThanOrEqual(50)
    expect(files.map((f) => f.file)).toContain('auth/change-password.post.ts')
  })

  for (const route of files) {
    it(`${route.file} defines its routes with defineRoute(ROUTES.<id>) for entries of its method and path`, () => {
      const ids = definedIds(readFileSync(route.absolute, 'utf8'))
      expect(ids.length, `${route.file} has no defineRoute(ROUTES.<id>, ...)`).toBeGreaterThan(0)
      for (const id of ids) {
        const entry = (ROUTES as Record<string, RouteContract>)[id]
        expect(entry, `${route.file}: ROUTES.${id} is not in the table`).toBeDefined()
        expect(covers(route, entry!), `${route.file}: ROUTES.${id} is ${entry!.method} ${entry!.path}, not this file's ${route.method ?? '*'} ${route.path}`).toBe(true)
      }
      // a file serving several entries (a [param] file) defines a unit for each of them
      const served = entries.filter(([, entry]) => covers(route, entry)).map(([id]) => id)
      expect([...new Set(ids)].sort(), `${route.file}: the table entries it serves and the units it defines`).toEqual(served.sort())
    })
  }

  it('serves every table entry by exactly one file that defines its unit', () => {
    const wrong = entries
      .map(([id]) => ({ id, files: files.filter((f) => definedIds(readFileSync(f.absolute, 'utf8')).includes(id)).map((f) => f.file) }))
      .filter(({ files: where }) => where.length !== 1)
      .map(({ id, files: where }) => `${id} (${where.length ? where.join(', ') : 'no file'})`)
    expect(wrong, `table entries without exactly one defineRoute(ROUTES.<id>) under iam/routes: ${wrong.join('; ')}`).toEqual([])
  })
})

describe('every route file is a unit of its table entry (module)', () => {
  /** The default export of each route file (the module check is made for the files serving one entry). */
  const loaded = new Map<string, unknown>()
  beforeAll(async () => {
    for (const route of files) loaded.set(route.file, (await import(route.absolute)).default)
  }, 60_000)

  for (const route of files) {
    const served = entries.filter(([, entry]) => covers(route, entry))
    if (served.length !== 1) continue
    const [id, entry] = served[0]!
    it(`${route.file} exports defineRoute's handler for ROUTES.${id}`, () => {
      const handlerOf = loaded.get(route.file) as { route?: RouteContract } | undefined
      expect(typeof handlerOf, `${route.file} has no default export`).toBe('function')
      expect(handlerOf!.route === entry, `${route.file}'s default export does not carry ROUTES.${id} (not made by defineRoute for it)`).toBe(true)
    })
  }
})
