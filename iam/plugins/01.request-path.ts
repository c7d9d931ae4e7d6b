/**
 * What Nitro does around every request, trimmed to what the IAM uses (issue 14, per-request cost):
 *
 * - Nitro calls its app hooks 'request', 'beforeResponse' and 'afterResponse' on every request,
 *   and hookable answers each call with a console task (async stack tagging) and a promise chain
 *   even when no hook is registered under that name. No IAM plugin uses them (the test build's
 *   request counter does): a call with nothing registered returns a settled promise, which is what
 *   hookable resolves to then anyway. hookable keeps its hooks by name in `_hooks`, outside its
 *   typed API: looked up per call, so hooks registered later count at once; without that table
 *   callHook is left as it is.
 * - The status a handler set before it threw is recorded as the error leaves the app, before h3
 *   replaces it with the error's (http/request.ts recordStatusBeforeError; the final handler,
 *   error.ts, reads it).
 */
import { defineEventHandler } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import { recordStatusBeforeError } from '../http/request'

const PER_REQUEST_HOOKS = new Set(['request', 'beforeResponse', 'afterResponse'])

export default defineNitroPlugin((nitroApp) => {
  const { hooks, h3App } = nitroApp
  const table = (hooks as unknown as { _hooks?: Record<string, unknown[] | undefined> })._hooks
  if (table && typeof table === 'object') {
    const callHook = hooks.callHook
    const settled = Promise.resolve()
    hooks.callHook = ((name: string, ...args: unknown[]) =>
      PER_REQUEST_HOOKS.has(name) && !table[name]?.length ? settled : Reflect.apply(callHook, hooks, [name, ...args])) as typeof hooks.callHook
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
