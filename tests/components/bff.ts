/**
 * The component tests' boundary: the gateway's own /api routes a page calls, answered inside the
 * Nuxt test environment by `registerEndpoint` (the page's fetch never leaves the process). Each
 * answer records the bodies the page sent; `held()` keeps a call open so a test can look at the
 * page while it waits.
 */
import { registerEndpoint } from '@nuxt/test-utils/runtime'
import { defineEventHandler, getMethod, readBody, setResponseStatus } from 'h3'
import { afterEach } from 'vitest'

type Json = Record<string, unknown>

export interface Answered {
  /** the JSON bodies the page sent, in order (undefined for a call without one, and for a PUT's file) */
  bodies: unknown[]
}

const registered: Array<() => void> = []
afterEach(() => {
  for (const unregister of registered.splice(0)) unregister()
})

/** Answers `method path` (path without its query) with `status` and `body` until the test ends. */
export function answer(method: 'GET' | 'POST' | 'PUT', path: string, status: number, body: Json, gate?: Promise<void>): Answered {
  return answerInTurn(method, path, [{ status, body }], gate)
}

/** A gate for `answer`: the call stays pending until `release()`. */
export function held(): { gate: Promise<void>; release(): void } {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  return { gate, release }
}

/**
 * Answers `method path` with each of `answers` in turn, the last one again once they run out: a
 * page that reads again after a failure sees the next answer. With `gate`, each answer waits for it.
 */
export function answerInTurn(method: 'GET' | 'POST' | 'PUT', path: string, answers: Array<{ status: number; body: Json }>, gate?: Promise<void>): Answered {
  const answered: Answered = { bodies: [] }
  registered.push(
    registerEndpoint(path, {
      method,
      handler: defineEventHandler(async (event) => {
        // a PUT carries a file (a picture upload): counted, not read, as the in-process fetch cannot hand a File over
        const method = getMethod(event)
        answered.bodies.push(method === 'GET' || method === 'PUT' ? undefined : await readBody(event))
        const { status, body } = answers[Math.min(answered.bodies.length, answers.length) - 1]!
        await gate
        setResponseStatus(event, status)
        return body
      }),
    }),
  )
  return answered
}
