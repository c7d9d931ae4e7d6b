/**
 * The status a handler set before it threw is recorded as the error leaves the app, before h3's
 * node listener replaces it with the error's (node_modules/h3: `toNodeListener` sets the error's
 * status, then calls `onError`, Nitro's error handler, iam/error.ts, which reads the recorded one:
 * http/request.ts recordStatusBeforeError).
 *
 * `h3App.handler` is a field of h3's public `App` type and of Nitro's `NitroApp`, and Nitro wraps
 * it the same way itself for its async context (nitropack's runtime app). Nitro's per-request work
 * (its `onRequest` closures, the 'request', 'beforeResponse' and 'afterResponse' hooks) is left as
 * Nitro builds it: skipping it took hookable's private hook table and a rewrite of the h3 app's
 * options, and what that saved is measured in docs/performance.md.
 */
import { defineEventHandler } from 'h3'
import { defineNitroPlugin } from 'nitropack/runtime'
import { recordStatusBeforeError } from '../http/request'

export default defineNitroPlugin(({ h3App }) => {
  const appHandler = h3App.handler
  // a Nitro or h3 whose app no longer has this entry stops the start here, not every request later
  if (typeof appHandler !== 'function') throw new TypeError('iam/plugins/01.error-status.ts: the h3 app has no handler to wrap')
  h3App.handler = defineEventHandler(async (event) => {
    try {
      return await appHandler(event)
    } catch (error) {
      recordStatusBeforeError(event)
      throw error
    }
  })
})
