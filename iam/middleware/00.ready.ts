import { defineEventHandler } from 'h3'
import { iamBooted, whenIamReady } from '../context'

/**
 * Holds requests that arrive while boot (migrations, connections) is still running. Once booted,
 * returns at once: awaiting the settled boot promise cost every request a promise and a tick.
 */
export default defineEventHandler(() => {
  if (!iamBooted()) return whenIamReady().then(() => undefined)
})
