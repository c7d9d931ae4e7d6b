import { defineEventHandler } from 'h3'
import { whenIamReady } from '../context'

/** Holds requests that arrive while boot (migrations, connections) is still running. */
export default defineEventHandler(async () => {
  await whenIamReady()
})
