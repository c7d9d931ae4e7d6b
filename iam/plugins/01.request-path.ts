/**
 * What Nitro does around every request, trimmed to what the IAM uses (per-request cost, docs/performance.md):
 *
 * - Nitro calls its app hooks 'request', 'beforeResponse' and 'afterResponse' on every request,
 *   and hookable answers each call with a console task (async stack tagging) and a promise chain
 *   even when no hook is registered under that name. No IAM plugin uses them (the test build's
 *   request counter does): a call with nothing registered returns a settled promise, which is what
 *   hookable resolves to then anyway. hookable keeps its hooks by name in `_hooks`, outside its
 *   typed API: looked up per call, so hooks registered later count at once; without that table
 *   callHook is left as it is.
 * - Nitro's own onRequest option gives every event four closures (event.fetch, event.$fetch,
 *   event.waitUntil, event.captureError) and an errors list, for local fetches, deferred work and
 *   error capture the IAM never uses (it makes no local fetch and defers work through
 *   lib/background.ts): replaced by one that only calls the 'request' hook, when one is registered
 *   (the test build's request counter), so tests and production run the same event shape. The
 *   onBeforeResponse and onAfterResponse options answer nothing at once while no hook is
 *   registered under their names, else Nitro's run.
 * - The status a handler set before it threw is recorded as the error leaves the app, before h3
 *   replaces it with the error's (http/request.ts recordStatusBeforeError; the final handler,
 *   error.ts, reads it).
 */
import { defineEventHandler, type H3Event } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import type { NitroApp } from 'nitropack/types'
import { recordStatusBeforeError } from '../http/request'

const PER_REQUEST_HOOKS = new Set(['request', 'beforeResponse', 'afterResponse'])

type ResponseOption = 'onBeforeResponse' | 'onAfterResponse'
const HOOK_OF: Record<ResponseOption, string> = { onBeforeResponse: 'beforeResponse', onAfterResponse: 'afterResponse' }

/** The h3 app's per-request options without Nitro's per-event closures; hooks looked up per call, as callHook does. */
function leanRequestOptions(nitroApp: NitroApp, table: Record<string, unknown[] | undefined>): void {
  const { options } = nitroApp.h3App
  if (options.onRequest) {
    options.onRequest = (event: H3Event) => {
      if (!table.request?.length) return
      // as Nitro's: a failing request hook is captured, not the request's failure
      return nitroApp.hooks.callHook('request', event).catch((error: unknown) => nitroApp.captureError(error as Error, { event, tags: ['request'] }))
    }
  }
  for (const option of Object.keys(HOOK_OF) as ResponseOption[]) {
    const nitros = options[option] as ((...args: unknown[]) => void | Promise<void>) | undefined
    if (!nitros) continue
    const hook = HOOK_OF[option]
    options[option] = (...args: unknown[]) => (table[hook]?.length ? nitros(...args) : undefined)
  }
}

export default defineNitroPlugin((nitroApp) => {
  const { hooks, h3App } = nitroApp
  const table = (hooks as unknown as { _hooks?: Record<string, unknown[] | undefined> })._hooks
  if (table && typeof table === 'object') {
    const callHook = hooks.callHook
    const settled = Promise.resolve()
    hooks.callHook = ((name: string, ...args: unknown[]) =>
      PER_REQUEST_HOOKS.has(name) && !table[name]?.length ? settled : Reflect.apply(callHook, hooks, [name, ...args])) as typeof hooks.callHook
    leanRequestOptions(nitroApp, table)
  }

  const appHandler = h3App.handler
  h3App.handler = defineEventHandler(async (event) => {
    try {
      return await appHandler(event)
    } catch (error) {
      recordStatusBeforeError(event)
      throw error
    }
  })
})
