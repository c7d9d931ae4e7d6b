/** Test build only: with IAM_TEST_ROUTES=1 the IAM's clock becomes the movable test clock. */
import { defineNitroPlugin } from 'nitropack/runtime'
import { replaceClockSource } from '../../lib/clock'
import { testClockNow } from '../clock'
import { testRoutesEnabled } from '../enabled'

export default defineNitroPlugin(() => {
  if (testRoutesEnabled(process.env)) replaceClockSource(testClockNow)
})
