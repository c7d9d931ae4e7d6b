/** Every answer counted for /metrics once it is sent: server/utils/metrics.ts countAnswer. */
import { defineEventHandler } from 'h3'
import { countAnswer } from '../utils/metrics'

export default defineEventHandler((event) => {
  countAnswer(event)
})
